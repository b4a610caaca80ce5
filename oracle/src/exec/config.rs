//! The executor's input and its failure: the concrete launch to run ([`ExecConfig`]) and why
//! an execution could not complete ([`ExecError`]).

use crate::ir::{Label, LaunchConfig};
use std::collections::BTreeMap;
use std::fmt;

/// The concrete launch to execute.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecConfig {
    /// `blockDim` (x, y, z).
    pub block_dim: [u32; 3],
    /// `gridDim` (x, y, z); every block is run.
    pub grid_dim: [u32; 3],
    /// Values of scalar kernel parameters, by name.
    pub params: BTreeMap<String, i64>,
    /// Statement executions allowed per block before giving up with [`ExecError::StepLimit`].
    pub max_steps: u64,
    /// Seed of the pseudo-random initial memory contents.
    pub seed: u64,
}

impl ExecConfig {
    /// The default step budget per block.
    pub const DEFAULT_MAX_STEPS: u64 = 2_000_000;

    /// A launch of `grid_dim` blocks of `block_dim` threads, no parameters, default budget.
    pub fn new(block_dim: [u32; 3], grid_dim: [u32; 3]) -> ExecConfig {
        ExecConfig {
            block_dim,
            grid_dim,
            params: BTreeMap::new(),
            max_steps: Self::DEFAULT_MAX_STEPS,
            seed: 0,
        }
    }

    /// The kernel's own launch config (one block when `gridDim` is unknown); `None` when
    /// `blockDim` is unknown.
    pub fn from_launch(l: &LaunchConfig) -> Option<ExecConfig> {
        let mut c = ExecConfig::new(l.block_dim?, l.grid_dim.unwrap_or([1, 1, 1]));
        c.params = l.params.clone();
        Some(c)
    }
}

/// Why the execution could not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExecError {
    /// A block exceeded [`ExecConfig::max_steps`] (probably an infinite loop).
    StepLimit,
    /// An integer kernel parameter was read but has no value.
    MissingParam(String),
    /// A construct the executor does not model (named barriers with counts, ...).
    Unsupported(String),
    /// An integer division or remainder by zero in the statement with this label.
    DivByZero(Label),
    /// The launch configuration is unusable.
    BadConfig(String),
    /// The IR refers to a variable or array it does not define.
    Malformed(String),
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExecError::StepLimit => write!(f, "step limit exceeded (infinite loop?)"),
            ExecError::MissingParam(p) => write!(f, "no value for kernel parameter `{p}`"),
            ExecError::Unsupported(m) => write!(f, "unsupported: {m}"),
            ExecError::DivByZero(l) => write!(f, "division by zero at label {}", l.0),
            ExecError::BadConfig(m) => write!(f, "bad launch configuration: {m}"),
            ExecError::Malformed(m) => write!(f, "malformed kernel IR: {m}"),
        }
    }
}

impl std::error::Error for ExecError {}
