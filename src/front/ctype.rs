//! C types as the lowering needs them: sizes and layouts for byte offsets, and the mapping to
//! IR scalar types.

use autosync_oracle::ir::ScalarTy;
use std::collections::HashMap;

/// A C/C++ type, as far as layout and integer semantics matter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CType {
    /// An integer type.
    Int {
        /// Width.
        bits: u8,
        /// Signedness.
        signed: bool,
    },
    /// `bool`.
    Bool,
    /// `float`/`double`/`half`: values are opaque.
    Float(u8),
    /// `void`.
    Void,
    /// A pointer.
    Ptr(Box<CType>),
    /// An array with an optional extent.
    Array(Box<CType>, Option<u64>),
    /// A struct/class (by name) or a vector type such as `float4`.
    Struct(String),
    /// A template type parameter with no known instantiation (symbolic; assumed 4 bytes).
    Param(String),
}

impl CType {
    /// `int`.
    pub const INT: CType = CType::Int { bits: 32, signed: true };
    /// `unsigned int`.
    pub const UINT: CType = CType::Int {
        bits: 32,
        signed: false,
    };
    /// `size_t`-like offsets.
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
            _ => ScalarTy::Opaque,
        }
    }

    /// Whether values of this type are integers (or bool) the checkers interpret.
    pub fn is_integral(&self) -> bool {
        matches!(self, CType::Int { .. } | CType::Bool)
    }

    /// The pointee of a pointer or element of an array.
    pub fn pointee(&self) -> Option<&CType> {
        match self {
            CType::Ptr(t) | CType::Array(t, _) => Some(t),
            _ => None,
        }
    }
}

/// A field of a struct layout.
#[derive(Clone, Debug)]
pub struct Field {
    /// Field name.
    pub name: String,
    /// Its type.
    pub ty: CType,
    /// Byte offset in the struct.
    pub offset: u64,
}

/// Struct layouts known to the lowering (user structs and CUDA vector types).
#[derive(Clone, Debug, Default)]
pub struct Layouts {
    /// Layout by struct name.
    pub structs: HashMap<String, (Vec<Field>, u64, u64)>,
}

impl Layouts {
    /// Layouts with the CUDA vector types (`float2`, `int4`, ...) predefined.
    pub fn with_builtins() -> Layouts {
        let mut l = Layouts::default();
        let bases: [(&str, CType); 8] = [
            ("float", CType::Float(32)),
            ("double", CType::Float(64)),
            ("int", CType::INT),
            ("uint", CType::UINT),
            ("char", CType::Int { bits: 8, signed: true }),
            ("uchar", CType::Int { bits: 8, signed: false }),
            ("short", CType::Int { bits: 16, signed: true }),
            ("longlong", CType::Int { bits: 64, signed: true }),
        ];
        for (base, ty) in bases {
            for n in 1..=4u64 {
                let fields: Vec<CType> = (0..n).map(|_| ty.clone()).collect();
                let names = ["x", "y", "z", "w"];
                let named: Vec<(String, CType)> = fields
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| (names[i].to_string(), t))
                    .collect();
                let sz = l.size_of(&ty);
                // CUDA aligns 2- and 4-vectors to their full size.
                let align = if n == 3 { sz } else { sz * n };
                l.define_aligned(&format!("{base}{n}"), named, align);
            }
        }
        l
    }

    /// Adds a struct with fields laid out in order with natural alignment.
    pub fn define(&mut self, name: &str, fields: Vec<(String, CType)>) {
        self.define_aligned(name, fields, 1)
    }

    fn define_aligned(&mut self, name: &str, fields: Vec<(String, CType)>, min_align: u64) {
        let mut off = 0u64;
        let mut align = min_align.max(1);
        let mut out = Vec::new();
        for (n, t) in fields {
            let a = self.align_of(&t);
            align = align.max(a);
            off = off.div_ceil(a) * a;
            let sz = self.size_of(&t);
            out.push(Field {
                name: n,
                ty: t,
                offset: off,
            });
            off += sz;
        }
        let size = off.div_ceil(align).max(1).saturating_mul(align);
        self.structs.insert(name.to_string(), (out, size, align));
    }

    /// Size in bytes (unknown structs and template parameters count as 4 bytes).
    pub fn size_of(&self, t: &CType) -> u64 {
        match t {
            CType::Int { bits, .. } => (*bits as u64 / 8).max(1),
            CType::Bool => 1,
            CType::Float(b) => *b as u64 / 8,
            CType::Void => 1,
            CType::Ptr(_) => 8,
            // Saturating: a declared extent can be absurd (fuzzing found `s[1L<<62][8]`).
            CType::Array(e, n) => self.size_of(e).saturating_mul(n.unwrap_or(1)),
            CType::Struct(s) => self.structs.get(s).map(|x| x.1).unwrap_or(4),
            CType::Param(_) => 4,
        }
    }

    /// Alignment in bytes.
    pub fn align_of(&self, t: &CType) -> u64 {
        match t {
            CType::Array(e, _) => self.align_of(e),
            CType::Struct(s) => self.structs.get(s).map(|x| x.2).unwrap_or(4),
            _ => self.size_of(t).clamp(1, 8),
        }
    }

    /// A field of a struct type.
    pub fn field(&self, struct_name: &str, field: &str) -> Option<&Field> {
        self.structs.get(struct_name)?.0.iter().find(|f| f.name == field)
    }
}

/// The type named by a primitive or well-known type name (`int`, `uint32_t`, `size_t`, ...).
pub fn named_type(name: &str) -> Option<CType> {
    let int = |bits, signed| Some(CType::Int { bits, signed });
    match name {
        "int" | "int32_t" | "signed" => int(32, true),
        "unsigned" | "uint" | "uint32_t" | "unsigned int" => int(32, false),
        "char" | "int8_t" | "signed char" => int(8, true),
        "uint8_t" | "unsigned char" | "uchar" => int(8, false),
        "short" | "int16_t" => int(16, true),
        "uint16_t" | "unsigned short" | "ushort" => int(16, false),
        "long" | "long long" | "int64_t" | "ptrdiff_t" | "long int" | "long long int" => int(64, true),
        "unsigned long" | "unsigned long long" | "uint64_t" | "size_t" | "ulong" => int(64, false),
        "bool" => Some(CType::Bool),
        "float" => Some(CType::Float(32)),
        "double" => Some(CType::Float(64)),
        "half" | "__half" | "__nv_bfloat16" => Some(CType::Float(16)),
        "void" => Some(CType::Void),
        _ => None,
    }
}
