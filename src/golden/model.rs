//! The SIMT golden model (issue 4). Placeholder: filled in by the golden-model work.
