pub mod bench;
pub mod calibrate;
pub mod proto;
/// The config lives below the units (`crate::config`); re-exported here
/// for the SM's users.
pub use crate::config::{ConfigError, SmConfig};
pub mod run;
pub mod top;
pub mod verilated;
pub mod waves;
