//! C++ types as the lowering needs them: integer semantics, pointers and arrays for byte
//! offsets, records by declaration id for layouts.

use autosync_oracle::ir::ScalarTy;

/// A type, as far as layout and integer semantics matter.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum CType {
    /// An integer type (enums included).
    Int {
        /// Width.
        bits: u8,
        /// Signedness.
        signed: bool,
    },
    /// `bool`.
    Bool,
    /// A floating-point type of this many bits: values are opaque.
    Float(u8),
    /// `void`.
    Void,
    /// A pointer.
    Ptr(Box<CType>),
    /// An lvalue or rvalue reference.
    Ref(Box<CType>),
    /// An array with an optional extent.
    Array(Box<CType>, Option<u64>),
    /// A class, struct or union, by the clang id of its definition.
    Record(u64),
    /// A function type (callee expressions only).
    Func,
    /// A type autosync does not interpret (its spelling), e.g. a dependent type.
    Other(String),
}

impl CType {
    /// `int`.
    pub const INT: CType = CType::Int { bits: 32, signed: true };
    /// `unsigned int`.
    pub const UINT: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    /// `unsigned long` (byte offsets).
    pub const U64: CType = CType::Int {
        bits: 64,
        signed: false,
    };

    /// The IR scalar type used for values of this type.
    pub fn scalar(&self) -> ScalarTy {
        match self {
            CType::Int { bits, signed } => ScalarTy::Int {
                bits: *bits,
                signed: *signed,
            },
            CType::Bool => ScalarTy::Bool,
            CType::Ref(t) => t.scalar(),
            _ => ScalarTy::Opaque,
        }
    }

    /// Whether values of this type are integers (or bool) the checkers interpret.
    pub fn is_integral(&self) -> bool {
        matches!(self, CType::Int { .. } | CType::Bool)
    }

    /// Whether a value of this type is one number (an integer, bool, float or pointer).
    pub fn is_scalar_like(&self) -> bool {
        matches!(self, CType::Int { .. } | CType::Bool | CType::Float(_) | CType::Ptr(_))
    }

    /// Whether this is a pointer type.
    pub fn is_pointer(&self) -> bool {
        matches!(self, CType::Ptr(_))
    }

    /// The pointee of a pointer or element of an array.
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Ptr(t) | CType::Array(t, _) => Some(t),
            _ => None,
        }
    }

    /// The referenced type of a reference; the type itself otherwise.
    pub fn unref(&self) -> &CType {
        match self {
            CType::Ref(t) => t,
            t => t,
        }
    }
}
