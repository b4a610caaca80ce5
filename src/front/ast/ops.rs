//! Clang's operators and cast kinds as enums. Every operator Clang prints has a variant; a
//! spelling it does not (a newer Clang's) keeps its text in `Other`, so that the lowering can
//! name it when it refuses it.

use super::ids::Sym;

/// Declares an operator enum with its spellings and an `Other(Sym)` variant.
macro_rules! operators {
    ($(#[$doc:meta])* $name:ident { $($v:ident = $s:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $(
                #[doc = concat!("`", $s, "`.")]
                $v,
            )*
            /// An operator not listed: its spelling, interned.
            Other(Sym),
        }

        impl $name {
            /// The operator spelled `s`, if it is listed.
            pub fn parse(s: &str) -> Option<$name> {
                match s {
                    $($s => Some($name::$v),)*
                    _ => None,
                }
            }

            /// The spelling of a listed operator (`None` for `Other`).
            pub fn known_spelling(self) -> Option<&'static str> {
                match self {
                    $($name::$v => Some($s),)*
                    $name::Other(_) => None,
                }
            }
        }
    };
}

operators! {
    /// A binary operator (`BinaryOperator`; a `CompoundAssignOperator` holds the operator it
    /// applies before assigning, `+` for `+=`).
    BinaryOp {
        PtrMemD = ".*",
        PtrMemI = "->*",
        Mul = "*",
        Div = "/",
        Rem = "%",
        Add = "+",
        Sub = "-",
        Shl = "<<",
        Shr = ">>",
        Cmp = "<=>",
        Lt = "<",
        Gt = ">",
        Le = "<=",
        Ge = ">=",
        Eq = "==",
        Ne = "!=",
        BitAnd = "&",
        BitXor = "^",
        BitOr = "|",
        LAnd = "&&",
        LOr = "||",
        Assign = "=",
        Comma = ",",
    }
}

operators! {
    /// A unary operator (`UnaryOperator`; prefix or postfix is the node's `is_postfix`).
    UnaryOp {
        Inc = "++",
        Dec = "--",
        AddrOf = "&",
        Deref = "*",
        Plus = "+",
        Minus = "-",
        Not = "~",
        LNot = "!",
        Real = "__real",
        Imag = "__imag",
        Extension = "__extension__",
        Coawait = "co_await",
    }
}

impl BinaryOp {
    /// The operator of a compound assignment spelled `s` (`+=` → `+`); only the arithmetic,
    /// bitwise and shift operators have one.
    pub fn parse_compound(s: &str) -> Option<BinaryOp> {
        use BinaryOp::*;
        let op = BinaryOp::parse(s.strip_suffix('=')?)?;
        matches!(op, Mul | Div | Rem | Add | Sub | Shl | Shr | BitAnd | BitXor | BitOr).then_some(op)
    }
}

/// The operator of an operator node, by the node's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opcode {
    /// Of a `UnaryOperator`.
    Unary(UnaryOp),
    /// Of a `BinaryOperator` or `CompoundAssignOperator`.
    Binary(BinaryOp),
}

/// Declares [`CastKind`] with one variant per listed kind, named as Clang names it.
macro_rules! cast_kinds {
    ($($k:ident),* $(,)?) => {
        /// The `castKind` of a cast expression.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CastKind {
            $(
                #[doc = concat!("`", stringify!($k), "`.")]
                $k,
            )*
            /// A cast kind the front end does not tell apart: its name, interned.
            Other(Sym),
        }

        impl CastKind {
            /// The cast kind named `s`, if it is listed.
            pub fn parse(s: &str) -> Option<CastKind> {
                match s {
                    $(stringify!($k) => Some(CastKind::$k),)*
                    _ => None,
                }
            }

            /// Clang's name of a listed cast kind (`None` for `Other`).
            pub fn known_name(self) -> Option<&'static str> {
                match self {
                    $(CastKind::$k => Some(stringify!($k)),)*
                    CastKind::Other(_) => None,
                }
            }
        }
    };
}

cast_kinds! {
    AddressSpaceConversion,
    ArrayToPointerDecay,
    AtomicToNonAtomic,
    BaseToDerived,
    BitCast,
    BooleanToSignedIntegral,
    ConstructorConversion,
    CPointerToObjCPointerCast,
    Dependent,
    DerivedToBase,
    FloatingCast,
    FloatingRealToComplex,
    FloatingToBoolean,
    FloatingToIntegral,
    FunctionToPointerDecay,
    IntegralCast,
    IntegralRealToComplex,
    IntegralToBoolean,
    IntegralToFloating,
    IntegralToPointer,
    LValueBitCast,
    LValueToRValue,
    NoOp,
    NonAtomicToAtomic,
    NullToPointer,
    PointerToBoolean,
    PointerToIntegral,
    ReinterpretMemberPointer,
    ToVoid,
    UncheckedDerivedToBase,
    UserDefinedConversion,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_round_trip() {
        for s in ["+", "<=>", ".*", "->*", ",", "&&", "="] {
            assert_eq!(BinaryOp::parse(s).and_then(BinaryOp::known_spelling), Some(s));
        }
        for s in ["++", "&", "*", "__extension__", "co_await"] {
            assert_eq!(UnaryOp::parse(s).and_then(UnaryOp::known_spelling), Some(s));
        }
        assert_eq!(
            CastKind::parse("LValueToRValue").and_then(CastKind::known_name),
            Some("LValueToRValue")
        );
        assert_eq!(BinaryOp::parse("+="), None);
    }

    #[test]
    fn compound_assignments_apply_their_operator() {
        assert_eq!(BinaryOp::parse_compound("+="), Some(BinaryOp::Add));
        assert_eq!(BinaryOp::parse_compound(">>="), Some(BinaryOp::Shr));
        assert_eq!(BinaryOp::parse_compound("<="), None);
        assert_eq!(BinaryOp::parse_compound("=="), None);
        assert_eq!(BinaryOp::parse_compound("+"), None);
    }
}
