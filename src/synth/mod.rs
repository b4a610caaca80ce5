//! Barrier synthesis: the optimisation layer that chooses where barriers go. [`space`] is the
//! placement space and options both syntheses share, [`block`] the block-wide placement
//! (AutoSync's Algorithm 1 with the oracle's iteration relations) and the naive baseline,
//! [`named`] the named-barrier placement, [`mbarrier`] the missing
//! arrives and waits of async pipelines, [`maxsat`] the weighted MaxSAT layer under all three.

pub mod block;
pub mod maxsat;
pub mod mbarrier;
pub mod named;
pub mod space;
