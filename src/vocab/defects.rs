//! Which rule each kind of checker finding is (and so its noun and severity), and the sentence
//! that states a synchronization defect with its values: the one place the oracle's defect
//! kinds meet the rules table.

use super::rules::{self, Rule};
use autosync_oracle::report::{Race, SyncDefectKind};

/// The rule of a race finding.
pub fn race_rule(race: &Race) -> &'static Rule {
    if race.store_in_flight {
        &rules::STORE_SOURCE_REUSE
    } else if race.benign {
        &rules::BENIGN_RACE
    } else if !race.overlap.is_empty() {
        &rules::LAYOUT_RACE
    } else {
        &rules::RACE
    }
}

/// The rule of a named-barrier or mbarrier defect.
pub fn sync_rule(kind: &SyncDefectKind) -> &'static Rule {
    // The sentence is built and dropped: defects are few, and one match keeps the kinds in
    // one place.
    sync_defect(kind).0
}

/// The sentence that states a named-barrier or mbarrier defect with its values.
pub fn sync_message(kind: &SyncDefectKind) -> String {
    sync_defect(kind).1
}

/// The rule of a synchronization defect and the sentence that states it.
fn sync_defect(kind: &SyncDefectKind) -> (&'static Rule, String) {
    match kind {
        SyncDefectKind::Deadlock { .. } => (&rules::DEADLOCK, "some execution waits forever at a barrier".into()),
        SyncDefectKind::CountMismatch { counts } => (
            &rules::COUNT_MISMATCH,
            format!(
                "participants of one named-barrier generation disagree on the thread count ({} vs {})",
                counts.0, counts.1
            ),
        ),
        SyncDefectKind::TooManyParticipants { count, registered } => (
            &rules::TOO_MANY_PARTICIPANTS,
            format!("too many participants at a named barrier ({registered} registered for a count of {count})"),
        ),
        SyncDefectKind::ArriveOnly => (
            &rules::ARRIVE_ONLY,
            "a named-barrier generation is completed by arrivals only (it orders nothing)".into(),
        ),
        SyncDefectKind::UnsafeRecycling { id } => (
            &rules::UNSAFE_RECYCLING,
            format!("named barrier {id} is reused before its previous generation completed"),
        ),
        SyncDefectKind::BadId { id } => (&rules::BAD_ID, format!("named barrier id {id} is outside 0..=15")),
        SyncDefectKind::BadCount { count } => (
            &rules::BAD_COUNT,
            format!("named barrier thread count {count} is not a positive multiple of 32"),
        ),
        SyncDefectKind::UninitializedUse { barrier } => (
            &rules::MBARRIER_UNINITIALIZED,
            format!("mbarrier `{barrier}` is used before its initialization is visible"),
        ),
        SyncDefectKind::ArrivalOverflow { barrier, count } => (
            &rules::MBARRIER_OVERFLOW,
            format!("more arrivals in one phase of mbarrier `{barrier}` than its count {count}"),
        ),
        SyncDefectKind::ParityMismatch { barrier, phase } => (
            &rules::MBARRIER_PARITY,
            format!("a parity wait on mbarrier `{barrier}` may observe another phase than phase {phase}"),
        ),
        SyncDefectKind::TxMismatch {
            barrier,
            phase,
            expected,
            completed,
        } => (
            &rules::MBARRIER_TX,
            format!(
                "phase {phase} of mbarrier `{barrier}` expects {expected} transaction bytes but its copies complete {completed}"
            ),
        ),
        SyncDefectKind::PhaseOrder { barrier, phase } => (
            &rules::MBARRIER_PHASE_ORDER,
            format!("an arrival on mbarrier `{barrier}` may count toward another phase than phase {phase}"),
        ),
        SyncDefectKind::MissingProxyFence { array } => (
            &rules::MISSING_PROXY_FENCE,
            format!("`{array}` is written without fence.proxy.async before a copy reads it through the async proxy"),
        ),
        SyncDefectKind::AlwaysTraps { instr, function, arch } => {
            (&rules::ALWAYS_TRAPS, always_traps(instr, function, arch))
        }
    }
}

/// The sentence of a kernel that always traps, with the architecture that would enable the
/// construct when it is one autosync knows a library gates.
fn always_traps(instr: &str, function: &str, arch: &str) -> String {
    let inside = if function.is_empty() {
        String::new()
    } else {
        format!(" in `{function}`")
    };
    let number: Option<u32> = arch
        .strip_prefix("sm_")
        .map(|a| a.trim_end_matches(char::is_alphabetic))
        .and_then(|a| a.parse().ok());
    let hint = if function.starts_with("cutlass::arch::") && number.is_some_and(|n| n < 90) {
        format!("CUTLASS compiles `{function}` as `{instr}` below sm_90: run with --arch sm_90a")
    } else {
        format!("if the build targets another architecture than {arch}, run with its --arch, or -p BUILD_DIR")
    };
    format!(
        "some thread reaches `{instr}`{inside} on every path, as read for {arch}: the kernel never completes ({hint})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_sync_defect_rule_is_in_the_table_once() {
        let kinds = [
            SyncDefectKind::Deadlock { waits: vec![] },
            SyncDefectKind::CountMismatch { counts: (64, 96) },
            SyncDefectKind::TooManyParticipants {
                count: 64,
                registered: 96,
            },
            SyncDefectKind::ArriveOnly,
            SyncDefectKind::UnsafeRecycling { id: 1 },
            SyncDefectKind::BadId { id: 16 },
            SyncDefectKind::BadCount { count: 33 },
            SyncDefectKind::UninitializedUse { barrier: "b".into() },
            SyncDefectKind::ArrivalOverflow {
                barrier: "b".into(),
                count: 1,
            },
            SyncDefectKind::ParityMismatch {
                barrier: "b".into(),
                phase: 0,
            },
            SyncDefectKind::TxMismatch {
                barrier: "b".into(),
                phase: 0,
                expected: 8,
                completed: 4,
            },
            SyncDefectKind::PhaseOrder {
                barrier: "b".into(),
                phase: 0,
            },
            SyncDefectKind::MissingProxyFence { array: "tile".into() },
            SyncDefectKind::AlwaysTraps {
                instr: "brkpt".into(),
                function: "f".into(),
                arch: "sm_80".into(),
            },
        ];
        let ids: Vec<&str> = kinds.iter().map(|k| sync_rule(k).id).collect();
        let mut distinct = ids.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), kinds.len(), "two kinds share a rule: {ids:?}");
        for id in ids {
            assert_eq!(rules::RULES.iter().filter(|r| r.id == id).count(), 1, "{id}");
            assert_eq!(rules::rule(id).unwrap().severity, rules::Severity::Error, "{id}");
        }
    }
}
