pub mod config;
pub use config::{ConfigError, SmConfig};
