//! Process exit codes (DESIGN.md) and how the codes of several files combine into one.

/// Clean or fixed.
pub const OK: u8 = 0;
/// Defects found (`check`) or changes needed (`fix --check`, `fix --diff`).
pub const DEFECTS: u8 = 1;
/// Usage or input error.
pub const INPUT: u8 = 2;
/// Not fixable by barriers.
pub const UNFIXABLE: u8 = 3;
/// Inconclusive.
pub const INCONCLUSIVE: u8 = 4;

/// Severity order of exit codes: the worst file decides the run's code.
fn rank(c: u8) -> u8 {
    match c {
        INPUT => 5,
        INCONCLUSIVE => 4,
        UNFIXABLE => 3,
        DEFECTS => 2,
        _ => 0,
    }
}

/// The worse of two exit codes.
pub fn worst(a: u8, b: u8) -> u8 {
    if rank(b) > rank(a) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_errors_dominate_then_inconclusive_then_unfixable_then_defects() {
        assert_eq!(worst(OK, DEFECTS), DEFECTS);
        assert_eq!(worst(UNFIXABLE, DEFECTS), UNFIXABLE);
        assert_eq!(worst(UNFIXABLE, INCONCLUSIVE), INCONCLUSIVE);
        assert_eq!(worst(INPUT, INCONCLUSIVE), INPUT);
        assert_eq!(worst(DEFECTS, OK), DEFECTS);
    }
}
