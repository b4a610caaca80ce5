//! Streaming reader of Clang's JSON AST dump.
//!
//! Clang prints `file` in a location only when it differs from the previous location printed
//! (in dump order), so the reader tracks the current file through every location it meets,
//! including those inside values it skips. Every node is kept, system headers' included (with
//! a real toolkit the CUDA prelude is precompiled and stays out of the dump).

use super::keys::{Key, Text};
use super::split::Piece;
use super::*;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::fmt;

/// Reads a dump from `input`.
/// `classify` tells, for a file name, whether it is a system header.
pub fn read<R: std::io::Read>(input: R, classify: &dyn Fn(&str) -> bool) -> Result<Ast, String> {
    let mut ast = Ast::default();
    // Symbol 0 is the empty string: the kind of a node whose `kind` never came (malformed input).
    ast.sym("");
    let mut reader = Reader {
        ast,
        cur_file: None,
        file_index: Default::default(),
        classify,
        scope: Vec::new(),
        in_friend: 0,
    };
    // Each top-level declaration is parsed from memory as soon as Clang has written all of it:
    // serde_json's slice reader is several times faster than its stream reader, which takes a
    // byte at a time.
    let mut split = super::split::Splitter::new(super::compact::Unindent::new(input, 1 << 20));
    let mut roots = Vec::new();
    let mut started = false;
    let mut other = None;
    while let Some(piece) = split
        .next_piece()
        .map_err(|e| format!("cannot read Clang's AST dump: {e}"))?
    {
        match piece {
            Piece::Head(head) => {
                // The translation unit's own keys (their locations set the current file).
                let mut top = head.to_vec();
                top.extend_from_slice(b"]}");
                parse_slice(&top, TopSeed { r: &mut reader })?;
                started = true;
            }
            Piece::Element(decl) => roots.extend(parse_slice(
                decl,
                NodeSeed {
                    r: &mut reader,
                    parent: None,
                },
            )?),
            Piece::Tail(tail) => {
                let mut rest = b"{\"\":0".to_vec();
                rest.extend_from_slice(tail);
                parse_slice(&rest, Skip { r: &mut reader })?;
            }
            Piece::Other(_) if started => {
                return Err("cannot read Clang's AST dump: it ends early or is malformed".into());
            }
            Piece::Other(read) => {
                other = Some(read.to_vec());
                break;
            }
        }
    }
    match other {
        // Another shape: read as a stream, as it is.
        Some(read) => {
            let input = std::io::Read::chain(&read[..], split.into_inner());
            let mut de = serde_json::Deserializer::from_reader(std::io::BufReader::with_capacity(1 << 16, input));
            de.disable_recursion_limit();
            TopSeed { r: &mut reader }
                .deserialize(&mut de)
                .map_err(|e| format!("cannot read Clang's AST dump: {e}"))?;
        }
        None => reader.ast.roots = roots,
    }
    let mut ast = reader.ast;
    ast.index_undumped_refs();
    Ok(ast)
}

/// Parses one piece of the dump held in memory with `seed`. The dump nests as deep as the code
/// (a sum of 60 terms is deeper than serde_json's default limit of 128); the reader recurses
/// with it, on threads whose stacks are sized for that (`workflow::parallel::WORKER_STACK`).
fn parse_slice<'de, S: DeserializeSeed<'de>>(bytes: &'de [u8], seed: S) -> Result<S::Value, String> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    seed.deserialize(&mut de)
        .map_err(|e| format!("cannot read Clang's AST dump: {e}"))
}

/// Reads a dump held in memory (tests, fuzzing).
pub fn read_slice(input: &[u8], classify: &dyn Fn(&str) -> bool) -> Result<Ast, String> {
    read(input, classify)
}

struct Reader<'a> {
    ast: Ast,
    cur_file: Option<FileIdx>,
    /// The files met so far, by name (a location names its file whenever it changes).
    file_index: rustc_hash::FxHashMap<String, FileIdx>,
    classify: &'a dyn Fn(&str) -> bool,
    /// Enclosing named declarations: (clang id, qualified name to prefix children with).
    scope: Vec<(u64, String)>,
    /// Inside a `FriendDecl`: its declarations redeclare ones of the enclosing namespace, which
    /// are indexed where they are declared (as members of the befriending record, they would get
    /// its name as their scope).
    in_friend: u32,
}

impl Reader<'_> {
    fn set_file(&mut self, name: &str) {
        let idx = match self.file_index.get(name) {
            Some(&i) => i,
            None => {
                let system = (self.classify)(name);
                self.ast.files.push(FileName {
                    name: name.to_string(),
                    system,
                    content: None,
                });
                let i = FileIdx(self.ast.files.len() as u32 - 1);
                self.file_index.insert(name.to_string(), i);
                i
            }
        };
        self.cur_file = Some(idx);
    }
}

/// Skips a value, still following `file` changes in the locations inside it.
struct Skip<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for Skip<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        while s.next_element_seed(Skip { r: &mut *self.r })?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::File => {
                    let name = m.next_value::<Text>()?.0;
                    self.r.set_file(&name);
                }
                // The includer's name is not a location of this dump.
                Key::IncludedFrom => {
                    m.next_value::<IgnoredAny>()?;
                }
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        Ok(())
    }
}

/// A bare location: `{offset, file?, line?, col, tokLen, includedFrom?}` or `{}`.
struct BareLocSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for BareLocSeed<'_, '_> {
    type Value = Option<Pos>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Pos>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for BareLocSeed<'_, '_> {
    type Value = Option<Pos>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a location")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<Pos>, A::Error> {
        let (mut offset, mut tok_len) = (None, 0u32);
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Offset => offset = Some(m.next_value::<u32>()?),
                Key::TokLen => tok_len = m.next_value::<u32>()?,
                Key::File => {
                    let name = m.next_value::<Text>()?.0;
                    self.r.set_file(&name);
                }
                Key::IncludedFrom => {
                    m.next_value::<IgnoredAny>()?;
                }
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        Ok(match (offset, self.r.cur_file) {
            (Some(offset), Some(file)) => Some(Pos { file, offset, tok_len }),
            _ => None,
        })
    }
}

/// A location: bare, or a spelling/expansion pair for tokens from macros.
struct LocSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for LocSeed<'_, '_> {
    type Value = Option<Loc>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Loc>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for LocSeed<'_, '_> {
    type Value = Option<Loc>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a location")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<Loc>, A::Error> {
        let (mut offset, mut tok_len) = (None, 0u32);
        let (mut spelling, mut expansion, mut macro_arg) = (None, None, false);
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Offset => offset = Some(m.next_value::<u32>()?),
                Key::TokLen => tok_len = m.next_value::<u32>()?,
                Key::File => {
                    let name = m.next_value::<Text>()?.0;
                    self.r.set_file(&name);
                }
                Key::SpellingLoc => spelling = m.next_value_seed(BareLocSeed { r: &mut *self.r })?,
                Key::ExpansionLoc => expansion = m.next_value_seed(BareLocSeed { r: &mut *self.r })?,
                Key::IsMacroArgExpansion => macro_arg = m.next_value::<bool>()?,
                Key::IncludedFrom => {
                    m.next_value::<IgnoredAny>()?;
                }
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        if let Some(expansion) = expansion {
            return Ok(Some(Loc {
                expansion,
                spelling,
                macro_arg,
            }));
        }
        Ok(match (offset, self.r.cur_file) {
            (Some(offset), Some(file)) => Some(Loc {
                expansion: Pos { file, offset, tok_len },
                spelling: None,
                macro_arg: false,
            }),
            _ => None,
        })
    }
}

struct RangeSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for RangeSeed<'_, '_> {
    type Value = Option<Range>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Range>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for RangeSeed<'_, '_> {
    type Value = Option<Range>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a range")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<Range>, A::Error> {
        let (mut begin, mut end) = (None, None);
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Begin => begin = m.next_value_seed(LocSeed { r: &mut *self.r })?,
                Key::End => end = m.next_value_seed(LocSeed { r: &mut *self.r })?,
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        Ok(match (begin, end) {
            (Some(begin), Some(end)) => Some(Range { begin, end }),
            _ => None,
        })
    }
}

/// `{qualType, desugaredQualType?, typeAliasDeclId?}`.
struct TypeSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for TypeSeed<'_, '_> {
    type Value = Option<TypeRef>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<TypeRef>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TypeSeed<'_, '_> {
    type Value = Option<TypeRef>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a type")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<TypeRef>, A::Error> {
        let (mut qual, mut desugared) = (None, None);
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::QualType => qual = Some(self.r.ast.sym(&m.next_value::<Text>()?.0)),
                Key::DesugaredQualType => desugared = Some(self.r.ast.sym(&m.next_value::<Text>()?.0)),
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        Ok(qual.map(|qual| TypeRef { qual, desugared }))
    }
}

/// An object with a `type` key (`bases` entries, `baseInit`, `argType` holders).
struct TypeHolderSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for TypeHolderSeed<'_, '_> {
    type Value = Option<TypeRef>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<TypeRef>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TypeHolderSeed<'_, '_> {
    type Value = Option<TypeRef>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with a type")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<TypeRef>, A::Error> {
        let mut t = None;
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Type => t = m.next_value_seed(TypeSeed { r: &mut *self.r })?,
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        Ok(t)
    }
}

struct BasesSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for BasesSeed<'_, '_> {
    type Value = Vec<TypeRef>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<TypeRef>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for BasesSeed<'_, '_> {
    type Value = Vec<TypeRef>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of bases")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Vec<TypeRef>, A::Error> {
        let mut out = Vec::new();
        while let Some(t) = s.next_element_seed(TypeHolderSeed { r: &mut *self.r })? {
            out.extend(t);
        }
        Ok(out)
    }
}

/// `{id, kind, name, type}`.
struct DeclRefSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for DeclRefSeed<'_, '_> {
    type Value = Option<DeclRef>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<DeclRef>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for DeclRefSeed<'_, '_> {
    type Value = Option<DeclRef>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a declaration reference")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<DeclRef>, A::Error> {
        let (mut id, mut kind, mut name) = (None, None, None);
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Id => id = parse_id(&m.next_value::<Text>()?.0),
                Key::Kind => {
                    let ast = &mut self.r.ast;
                    kind = Some(NodeKind::from_name(&m.next_value::<Text>()?.0, |s| ast.sym(s)));
                }
                Key::Name => name = Some(self.r.ast.sym(&m.next_value::<Text>()?.0)),
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        let empty = self.r.ast.sym("");
        Ok(id.map(|id| DeclRef {
            id,
            kind: kind.unwrap_or(NodeKind::Other(empty)),
            name: name.unwrap_or(empty),
        }))
    }
}

/// A scalar value printed as text (`"4"`, `4`, `true`).
struct ValueText;

impl<'de> DeserializeSeed<'de> for ValueText {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ValueText {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Option<String>, E> {
        Ok(Some(if v { "1".into() } else { "0".into() }))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<String>, E> {
        Ok(Some(v.to_string()))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Option<String>, A::Error> {
        while s.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<String>, A::Error> {
        while m.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(None)
    }
}

/// Clang's ids are pointers printed in hex.
fn parse_id(s: &str) -> Option<u64> {
    u64::from_str_radix(s.trim_start_matches("0x"), 16).ok()
}

/// Kinds of declarations whose children are declarations under their name.
fn opens_scope(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::NamespaceDecl
            | NodeKind::CXXRecordDecl
            | NodeKind::ClassTemplateSpecializationDecl
            | NodeKind::ClassTemplatePartialSpecializationDecl
            | NodeKind::EnumDecl
            | NodeKind::RecordDecl
    )
}

/// A cast kind; one not listed keeps its name.
fn parse_cast_kind(ast: &mut Ast, text: &str) -> CastKind {
    CastKind::parse(text).unwrap_or_else(|| CastKind::Other(ast.sym(text)))
}

/// The operator of an operator node, read by its kind (`-` is unary in a `UnaryOperator`, and
/// a `CompoundAssignOperator`'s `+=` applies `+`); a spelling not listed keeps its text.
fn parse_opcode(ast: &mut Ast, kind: NodeKind, text: &str) -> Opcode {
    match kind {
        NodeKind::UnaryOperator => Opcode::Unary(UnaryOp::parse(text).unwrap_or_else(|| UnaryOp::Other(ast.sym(text)))),
        NodeKind::CompoundAssignOperator => {
            Opcode::Binary(BinaryOp::parse_compound(text).unwrap_or_else(|| BinaryOp::Other(ast.sym(text))))
        }
        _ => Opcode::Binary(BinaryOp::parse(text).unwrap_or_else(|| BinaryOp::Other(ast.sym(text)))),
    }
}

/// The translation unit: its `inner` holds the top-level declarations.
struct TopSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a TranslationUnitDecl")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Inner => {
                    let roots = m.next_value_seed(InnerSeed {
                        r: &mut *self.r,
                        parent: None,
                    })?;
                    self.r.ast.roots = roots.into_iter().flatten().collect();
                }
                _ => m.next_value_seed(Skip { r: &mut *self.r })?,
            }
        }
        Ok(())
    }
}

/// A list of child nodes.
struct InnerSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
    parent: Option<NodeId>,
}

impl<'de> DeserializeSeed<'de> for InnerSeed<'_, '_> {
    type Value = Vec<Option<NodeId>>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for InnerSeed<'_, '_> {
    type Value = Vec<Option<NodeId>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(n) = s.next_element_seed(NodeSeed {
            r: &mut *self.r,
            parent: self.parent,
        })? {
            // A documentation comment is no part of the program: kept as a child it would
            // pass for a declaration's initializer or an enumerator's value.
            if n.is_some_and(|id| self.r.ast.kind_str(id) == "FullComment") {
                continue;
            }
            out.push(n);
        }
        Ok(out)
    }
}

/// One node.
struct NodeSeed<'r, 'a> {
    r: &'r mut Reader<'a>,
    parent: Option<NodeId>,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_, '_> {
    type Value = Option<NodeId>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<NodeId>, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_, '_> {
    type Value = Option<NodeId>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an AST node")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Option<NodeId>, A::Error> {
        let r = self.r;
        let mut id = 0u64;
        let mut kind: Option<NodeKind> = None;
        let mut opcode: Option<String> = None;
        let mut node = Node {
            kind: NodeKind::Other(Sym(0)),
            id: 0,
            name: None,
            ty: None,
            loc: None,
            range: None,
            attrs: Box::default(),
            inner: Vec::new(),
            parent: self.parent,
        };
        let mut committed: Option<NodeId> = None;
        let mut pushed_scope = false;
        let mut hidden_friend = false;
        let mut is_decl = false;
        while let Some(k) = m.next_key::<Key>()? {
            match k {
                Key::Id => id = m.next_value::<Text>().map(|s| parse_id(&s.0).unwrap_or(0))?,
                Key::Kind => {
                    let s = m.next_value::<Text>()?.0;
                    is_decl = s.ends_with("Decl");
                    kind = Some(NodeKind::from_name(&s, |s| r.ast.sym(s)));
                }
                Key::Loc => node.loc = m.next_value_seed(LocSeed { r: &mut *r })?,
                Key::Range => node.range = m.next_value_seed(RangeSeed { r: &mut *r })?,
                Key::Name => node.name = Some(r.ast.sym(&m.next_value::<Text>()?.0)),
                Key::Type => node.ty = m.next_value_seed(TypeSeed { r: &mut *r })?,
                Key::Inner => {
                    // Everything before `inner` is known: record the declaration, then the
                    // children under its scope.
                    let kind_s = kind.unwrap_or(NodeKind::Other(Sym(0)));
                    let friend = kind_s == NodeKind::FriendDecl;
                    hidden_friend = is_decl && id != 0 && is_hidden_friend(r, self.parent, kind_s, &node);
                    if hidden_friend {
                        // Declared nowhere else (`init` of `cuda::barrier`): indexed here, named
                        // in the namespace around the befriending record, its body read as any
                        // function's, its names looked up in the record.
                        let ns = namespace_scope(r);
                        r.scope.push(ns);
                        r.in_friend -= 1;
                    }
                    if is_decl && id != 0 && r.in_friend == 0 {
                        pushed_scope = record_decl(r, id, kind_s, &node);
                    }
                    let me = commit(r, id, kind_s, &mut node, opcode.as_deref());
                    committed = Some(me);
                    if is_decl && id != 0 {
                        if let Some(d) = r.ast.decls.get_mut(&id) {
                            d.node.get_or_insert(me);
                        }
                    }
                    r.in_friend += friend as u32;
                    let inner = m.next_value_seed(InnerSeed {
                        r: &mut *r,
                        parent: Some(me),
                    })?;
                    r.in_friend -= friend as u32;
                    {
                        // A declaration dumped twice (a specialization listed under every
                        // redeclaration of its template): the fullest dump names it.
                        if is_decl && id != 0 {
                            let fuller = match r.ast.decls.get(&id).and_then(|d| d.node) {
                                Some(old) if old != me => r.ast.nodes[old as usize].inner.len() < inner.len(),
                                _ => false,
                            };
                            if fuller {
                                if let Some(d) = r.ast.decls.get_mut(&id) {
                                    d.node = Some(me);
                                }
                            }
                        }
                        r.ast.nodes[me as usize].inner = inner;
                    }
                }
                Key::IsInline => node.attrs.inline_ns = m.next_value()?,
                Key::ValueCategory => node.attrs.value_category = Some(r.ast.sym(&m.next_value::<Text>()?.0)),
                Key::Opcode => opcode = Some(m.next_value::<Text>()?.0.into_owned()),
                Key::CastKind => node.attrs.cast_kind = Some(parse_cast_kind(&mut r.ast, &m.next_value::<Text>()?.0)),
                Key::Value => {
                    if let Some(v) = m.next_value_seed(ValueText)? {
                        node.attrs.value = Some(r.ast.sym(&v));
                    }
                }
                Key::ReferencedDecl => node.attrs.referenced = m.next_value_seed(DeclRefSeed { r: &mut *r })?,
                Key::ReferencedMemberDecl => node.attrs.member = parse_id(&m.next_value::<Text>()?.0),
                Key::IsArrow => node.attrs.is_arrow = m.next_value()?,
                Key::IsPostfix => node.attrs.is_postfix = m.next_value()?,
                Key::IsImplicit => node.attrs.is_implicit = m.next_value()?,
                Key::StorageClass => node.attrs.storage_class = Some(r.ast.sym(&m.next_value::<Text>()?.0)),
                Key::Init => node.attrs.init = Some(r.ast.sym(&m.next_value::<Text>()?.0)),
                Key::TagUsed => node.attrs.tag = Some(r.ast.sym(&m.next_value::<Text>()?.0)),
                Key::CompleteDefinition => node.attrs.complete = m.next_value()?,
                Key::CtorType => node.attrs.ctor_type = m.next_value_seed(TypeSeed { r: &mut *r })?.map(|t| t.qual),
                Key::ArgType => node.attrs.arg_type = m.next_value_seed(TypeSeed { r: &mut *r })?,
                Key::HasInit => node.attrs.has_init = m.next_value()?,
                Key::HasVar => node.attrs.has_var = m.next_value()?,
                Key::HasElse => node.attrs.has_else = m.next_value()?,
                Key::Bases => node.attrs.bases = m.next_value_seed(BasesSeed { r: &mut *r })?,
                Key::BaseInit => node.attrs.base_init = m.next_value_seed(TypeSeed { r: &mut *r })?,
                Key::AnyInit => node.attrs.any_init = m.next_value_seed(DeclRefSeed { r: &mut *r })?,
                Key::ConversionFunc => node.attrs.conversion = m.next_value_seed(DeclRefSeed { r: &mut *r })?,
                Key::Dtor => node.attrs.dtor = m.next_value_seed(DeclRefSeed { r: &mut *r })?,
                Key::ExplicitlyDefaulted => {
                    m.next_value::<IgnoredAny>()?;
                    node.attrs.defaulted = true;
                }
                Key::Variadic => node.attrs.variadic = m.next_value()?,
                Key::PreviousDecl => node.attrs.previous = parse_id(&m.next_value::<Text>()?.0),
                // The declaration a type node names (`RecordType`, `EnumType`, `TypedefType`).
                Key::Decl => node.attrs.referenced = m.next_value_seed(DeclRefSeed { r: &mut *r })?,
                Key::FixedUnderlyingType => node.attrs.fixed_type = m.next_value_seed(TypeSeed { r: &mut *r })?,
                _ => m.next_value_seed(Skip { r: &mut *r })?,
            }
        }
        if pushed_scope {
            r.scope.pop();
        }
        if hidden_friend {
            r.scope.pop();
            r.in_friend += 1;
        }
        let Some(kind_s) = kind else {
            // `{}`: a null child.
            return Ok(None);
        };
        if committed.is_none() {
            // A node without children.
            if is_decl && id != 0 && r.in_friend == 0 {
                let pushed = record_decl(r, id, kind_s, &node);
                if pushed {
                    r.scope.pop();
                }
            }
            let me = commit(r, id, kind_s, &mut node, opcode.as_deref());
            if is_decl && id != 0 {
                if let Some(d) = r.ast.decls.get_mut(&id) {
                    d.node.get_or_insert(me);
                }
            }
            committed = Some(me);
        }
        Ok(committed)
    }
}

/// Adds the node to the arena (children are filled in later), with its operator read by its kind.
fn commit(r: &mut Reader, id: u64, kind: NodeKind, node: &mut Node, opcode: Option<&str>) -> NodeId {
    node.attrs.opcode = opcode.map(|t| parse_opcode(&mut r.ast, kind, t));
    let me = r.ast.nodes.len() as NodeId;
    let mut n = std::mem::replace(
        node,
        Node {
            kind,
            id,
            name: None,
            ty: None,
            loc: None,
            range: None,
            attrs: Box::default(),
            inner: Vec::new(),
            parent: None,
        },
    );
    n.kind = kind;
    n.id = id;
    r.ast.nodes.push(n);
    me
}

/// Whether a node is a function defined only as a friend of a record: the direct child of a
/// `FriendDecl` redeclaring nothing (a hidden friend, found by argument-dependent lookup).
fn is_hidden_friend(r: &Reader, parent: Option<NodeId>, kind: NodeKind, node: &Node) -> bool {
    let in_friend = parent.is_some_and(|p| r.ast.kind(p) == NodeKind::FriendDecl);
    in_friend
        && r.in_friend == 1
        && node.attrs.previous.is_none()
        && matches!(kind, NodeKind::FunctionDecl | NodeKind::FunctionTemplateDecl)
}

/// The scope a hidden friend is declared in: the befriending record (where its body looks names
/// up), with the qualified name of the innermost enclosing namespace (where it is a member).
fn namespace_scope(r: &Reader) -> (u64, String) {
    let is_ns = |id: &u64| r.ast.decls.get(id).is_some_and(|d| d.kind == NodeKind::NamespaceDecl);
    let record = r.scope.last().map(|(id, _)| *id).unwrap_or(0);
    let ns = r.scope.iter().rev().find(|(id, _)| is_ns(id)).map(|(_, q)| q.clone());
    (record, ns.unwrap_or_default())
}

/// Indexes a declaration; returns whether it opened a naming scope (to pop after its children).
fn record_decl(r: &mut Reader, id: u64, kind: NodeKind, node: &Node) -> bool {
    let name = node.name.map(|s| r.ast.str(s).to_string()).unwrap_or_default();
    let prefix = r.scope.last().map(|(_, q)| q.clone()).unwrap_or_default();
    let qual = if name.is_empty() {
        prefix.clone()
    } else if prefix.is_empty() {
        name.clone()
    } else {
        format!("{prefix}::{name}")
    };
    let parent = r.scope.last().map(|(p, _)| *p);
    let empty = r.ast.sym("");
    if !r.ast.decls.contains_key(&id) {
        if let Some(p) = parent.and_then(|p| r.ast.decls.get_mut(&p)) {
            p.members.push(id);
        }
    }
    r.ast.decls.entry(id).or_insert(DeclInfo {
        node: None,
        kind,
        name: node.name.unwrap_or(empty),
        qual: qual.clone(),
        ty: node.ty,
        parent,
        file: node.loc.map(|l| l.expansion.file),
        members: Vec::new(),
    });
    if opens_scope(kind) {
        // Anonymous and inline namespaces do not appear in qualified names.
        let scoped = if kind == NodeKind::NamespaceDecl && (name.is_empty() || node.attrs.inline_ns) {
            prefix
        } else {
            qual
        };
        r.scope.push((id, scoped));
        return true;
    }
    if matches!(
        kind,
        NodeKind::FunctionDecl
            | NodeKind::CXXMethodDecl
            | NodeKind::CXXConstructorDecl
            | NodeKind::CXXDestructorDecl
            | NodeKind::CXXConversionDecl
    ) {
        // Locals and parameters: parent is the function; their names are not qualified.
        r.scope.push((id, prefix));
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::read_slice;
    use crate::front::ast::{BinaryOp, CastKind, NodeKind, Opcode, UnaryOp};

    /// Kinds, operators and cast kinds are interned as enums; an operator is read by its node's
    /// kind (`-` is unary in a `UnaryOperator`, `<<=` applies `<<`), and a kind, operator or cast
    /// not listed keeps its name for messages.
    #[test]
    fn vocabulary_is_read_into_enums() {
        let dump = br#"{"kind": "TranslationUnitDecl", "inner": [
            {"id": "0x1", "kind": "UnaryOperator", "opcode": "-"},
            {"id": "0x2", "kind": "CompoundAssignOperator", "opcode": "<<="},
            {"id": "0x3", "kind": "BinaryOperator", "opcode": "<=>"},
            {"id": "0x4", "kind": "BinaryOperator", "opcode": "@@"},
            {"id": "0x5", "kind": "ImplicitCastExpr", "castKind": "MatrixCast"},
            {"id": "0x6", "kind": "CoawaitExpr"}]}"#;
        let ast = read_slice(dump, &|_| false).unwrap();
        let r = &ast.roots;
        assert_eq!(ast.unary_op(r[0]), Some(UnaryOp::Minus));
        assert_eq!(
            (ast.kind(r[1]), ast.binary_op(r[1])),
            (NodeKind::CompoundAssignOperator, Some(BinaryOp::Shl))
        );
        assert_eq!(ast.binary_op(r[2]), Some(BinaryOp::Cmp));
        let other = ast.node(r[3]).attrs.opcode.unwrap();
        assert!(matches!(other, Opcode::Binary(BinaryOp::Other(_))));
        assert_eq!(ast.op_spelling(other), "@@");
        assert!(matches!(ast.cast_kind(r[4]), Some(CastKind::Other(_))));
        assert_eq!(ast.cast_name(ast.cast_kind(r[4]).unwrap()), "MatrixCast");
        assert_eq!(
            (ast.kind(r[4]), ast.kind_str(r[5])),
            (NodeKind::ImplicitCastExpr, "CoawaitExpr")
        );
        assert!(matches!(ast.kind(r[5]), NodeKind::Other(_)));
    }

    /// Found by fuzzing: nodes whose `inner` comes before any `kind` (none interned yet) are
    /// read, not a panic.
    #[test]
    fn a_node_without_a_kind_is_read() {
        let dump = br#"{"id": "0x1", "inner": [{"id": "0x2", "inner": [{"id": "0x3", "inner": []}]}]}"#;
        let _ = read_slice(dump, &|_| false);
    }
}
