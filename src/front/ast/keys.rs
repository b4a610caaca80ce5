//! The dump's vocabulary as the reader meets it: the keys it looks at (as an enum, interned
//! while parsing) and its strings (borrowed from the piece being parsed when they hold no
//! escapes).

use serde::de::{self, Deserializer, Visitor};
use std::fmt;

/// Keys of the dump the reader looks at; everything else is skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    Id,
    Kind,
    Loc,
    Range,
    Name,
    Type,
    ValueCategory,
    Opcode,
    CastKind,
    Value,
    ReferencedDecl,
    ReferencedMemberDecl,
    IsArrow,
    IsPostfix,
    IsImplicit,
    StorageClass,
    Init,
    TagUsed,
    CompleteDefinition,
    IsInline,
    CtorType,
    ArgType,
    HasInit,
    HasVar,
    HasElse,
    Bases,
    BaseInit,
    AnyInit,
    ConversionFunc,
    Dtor,
    ExplicitlyDefaulted,
    Variadic,
    PreviousDecl,
    FixedUnderlyingType,
    Decl,
    Inner,
    File,
    IncludedFrom,
    SpellingLoc,
    ExpansionLoc,
    IsMacroArgExpansion,
    Offset,
    TokLen,
    Begin,
    End,
    QualType,
    DesugaredQualType,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KV;
        impl Visitor<'_> for KV {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Key, E> {
                Ok(match s {
                    "id" => Key::Id,
                    "kind" => Key::Kind,
                    "loc" => Key::Loc,
                    "range" => Key::Range,
                    "name" => Key::Name,
                    "type" => Key::Type,
                    "valueCategory" => Key::ValueCategory,
                    "opcode" => Key::Opcode,
                    "castKind" => Key::CastKind,
                    "value" => Key::Value,
                    "referencedDecl" => Key::ReferencedDecl,
                    "referencedMemberDecl" => Key::ReferencedMemberDecl,
                    "isArrow" => Key::IsArrow,
                    "isPostfix" => Key::IsPostfix,
                    "isImplicit" => Key::IsImplicit,
                    "storageClass" => Key::StorageClass,
                    "init" => Key::Init,
                    "tagUsed" => Key::TagUsed,
                    "completeDefinition" => Key::CompleteDefinition,
                    "isInline" => Key::IsInline,
                    "ctorType" => Key::CtorType,
                    "argType" => Key::ArgType,
                    "hasInit" => Key::HasInit,
                    "hasVar" => Key::HasVar,
                    "hasElse" => Key::HasElse,
                    "bases" => Key::Bases,
                    "baseInit" => Key::BaseInit,
                    "anyInit" => Key::AnyInit,
                    "conversionFunc" => Key::ConversionFunc,
                    "dtor" => Key::Dtor,
                    "explicitlyDefaulted" | "explicitlyDeleted" => Key::ExplicitlyDefaulted,
                    "variadic" => Key::Variadic,
                    "previousDecl" => Key::PreviousDecl,
                    "fixedUnderlyingType" => Key::FixedUnderlyingType,
                    // `target`: what a using-declaration's shadow stands for.
                    "decl" | "ownedTagDecl" | "target" => Key::Decl,
                    "inner" => Key::Inner,
                    "file" => Key::File,
                    "includedFrom" => Key::IncludedFrom,
                    "spellingLoc" => Key::SpellingLoc,
                    "expansionLoc" => Key::ExpansionLoc,
                    "isMacroArgExpansion" => Key::IsMacroArgExpansion,
                    "offset" => Key::Offset,
                    "tokLen" => Key::TokLen,
                    "begin" => Key::Begin,
                    "end" => Key::End,
                    "qualType" => Key::QualType,
                    "desugaredQualType" => Key::DesugaredQualType,
                    _ => Key::Other,
                })
            }
        }
        d.deserialize_identifier(KV)
    }
}

/// A string of the dump, borrowed from it when it holds no escapes (the pieces are parsed
/// from memory): most strings are only looked at or interned, never kept.
pub(super) struct Text<'de>(pub std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text<'de>, D::Error> {
        struct TV;
        impl<'de> Visitor<'de> for TV {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Text<'de>, E> {
                Ok(Text(std::borrow::Cow::Borrowed(s)))
            }
            fn visit_str<E>(self, s: &str) -> Result<Text<'de>, E> {
                Ok(Text(std::borrow::Cow::Owned(s.to_string())))
            }
            fn visit_string<E>(self, s: String) -> Result<Text<'de>, E> {
                Ok(Text(std::borrow::Cow::Owned(s)))
            }
        }
        d.deserialize_str(TV)
    }
}
