//! Berkeley TestFloat vector checker (issue 3). Placeholder: filled in by the arithmetic work.
