//! Case counts of the randomized sweeps (the integration tests', the emitter's corpus sweeps,
//! the MaxSAT property tests): a fraction of the full count by default (the merge
//! gate), the full count with `AUTOSYNC_FULL_SWEEPS=1`, and `F` times it with
//! `AUTOSYNC_GEN_CASES=F` (a longer local search, or a quick run with `F` below 1).

/// The share of each sweep's full count that a default run (and so the merge gate) checks.
pub const GATE_FRACTION: f64 = 0.25;

/// The factor applied to every full count: `AUTOSYNC_GEN_CASES` when set, else 1 with
/// `AUTOSYNC_FULL_SWEEPS=1`, else [`GATE_FRACTION`].
pub fn factor() -> f64 {
    if let Some(f) = std::env::var("AUTOSYNC_GEN_CASES").ok().and_then(|v| v.parse().ok()) {
        return f;
    }
    match std::env::var("AUTOSYNC_FULL_SWEEPS").as_deref() {
        Ok("1") => 1.0,
        _ => GATE_FRACTION,
    }
}

/// `full` cases scaled by [`factor`], at least one.
pub fn cases(full: u64) -> u64 {
    ((full as f64 * factor()) as u64).max(1)
}

/// Whether this run checks every case (`AUTOSYNC_FULL_SWEEPS=1`, or a factor of 1 or more).
pub fn full() -> bool {
    factor() >= 1.0
}

/// The items of a sweep this run checks, in order: those whose index [`keeps`] accepts.
pub fn sample<I: IntoIterator>(items: I, salt: usize) -> impl Iterator<Item = I::Item> {
    items
        .into_iter()
        .enumerate()
        .filter(move |(i, _)| keeps(*i, salt))
        .map(|(_, x)| x)
}

/// Whether case `i` of a sweep over items taken in a fixed order is checked in this run: all
/// of them in a full run, else an evenly spread [`factor`] share (every 4th at the gate's
/// quarter), shifted by `salt` so that sweeps over different lists do not all keep their
/// first item.
pub fn keeps(i: usize, salt: usize) -> bool {
    let f = factor();
    if f >= 1.0 {
        return true;
    }
    let stride = (1.0 / f.max(1e-6)).round().max(1.0) as usize;
    (i + salt).is_multiple_of(stride)
}
