pub mod bench;
pub mod calibrate;
pub mod config;
pub use config::{ConfigError, SmConfig};
pub mod run;
pub mod top;
pub mod verilated;
pub mod waves;
