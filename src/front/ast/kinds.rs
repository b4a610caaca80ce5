//! Clang's node kinds as an enum: every kind the front end tells apart has a variant, the rest
//! keep their interned name (`Other`), so a kind is compared as a number, never as text.

use super::ids::Sym;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Declares [`NodeKind`] with one variant per listed kind, named as Clang names it.
macro_rules! node_kinds {
    ($($k:ident),* $(,)?) => {
        /// The kind of a node (`ForStmt`, `VarDecl`, ...), or of a declaration a node refers to.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum NodeKind {
            $(
                #[doc = concat!("`", stringify!($k), "`.")]
                $k,
            )*
            /// A kind the front end does not tell apart: its name, interned.
            Other(Sym),
        }

        impl NodeKind {
            /// Clang's name of a listed kind (`None` for [`NodeKind::Other`]).
            pub fn known_name(self) -> Option<&'static str> {
                match self {
                    $(NodeKind::$k => Some(stringify!($k)),)*
                    NodeKind::Other(_) => None,
                }
            }

            /// Every listed kind by its name.
            fn table() -> &'static HashMap<&'static str, NodeKind> {
                static TABLE: OnceLock<HashMap<&'static str, NodeKind>> = OnceLock::new();
                TABLE.get_or_init(|| HashMap::from([$((stringify!($k), NodeKind::$k)),*]))
            }
        }
    };
}

node_kinds! {
    // Declarations.
    ClassTemplateDecl,
    ClassTemplatePartialSpecializationDecl,
    ClassTemplateSpecializationDecl,
    CXXConstructorDecl,
    CXXConversionDecl,
    CXXDestructorDecl,
    CXXMethodDecl,
    CXXRecordDecl,
    EnumConstantDecl,
    EnumDecl,
    ExportDecl,
    FieldDecl,
    FriendDecl,
    FunctionDecl,
    FunctionTemplateDecl,
    LinkageSpecDecl,
    NamespaceAliasDecl,
    NamespaceDecl,
    NonTypeTemplateParmDecl,
    ParmVarDecl,
    RecordDecl,
    StaticAssertDecl,
    TemplateTemplateParmDecl,
    TemplateTypeParmDecl,
    TypeAliasDecl,
    TypeAliasTemplateDecl,
    TypedefDecl,
    UsingDecl,
    UsingDirectiveDecl,
    UsingShadowDecl,
    VarDecl,
    VarTemplateSpecializationDecl,
    // Statements.
    AttributedStmt,
    BreakStmt,
    CaseStmt,
    CompoundStmt,
    ContinueStmt,
    CXXForRangeStmt,
    CXXTryStmt,
    DeclStmt,
    DefaultStmt,
    DoStmt,
    ForStmt,
    GCCAsmStmt,
    GotoStmt,
    IfStmt,
    IndirectGotoStmt,
    LabelStmt,
    MSAsmStmt,
    NullStmt,
    ReturnStmt,
    SwitchStmt,
    WhileStmt,
    // Expressions.
    ArrayInitLoopExpr,
    ArraySubscriptExpr,
    BinaryOperator,
    BuiltinBitCastExpr,
    CallExpr,
    CharacterLiteral,
    CompoundAssignOperator,
    ConditionalOperator,
    ConstantExpr,
    CStyleCastExpr,
    CUDAKernelCallExpr,
    CXXBindTemporaryExpr,
    CXXBoolLiteralExpr,
    CXXConstCastExpr,
    CXXConstructExpr,
    CXXDefaultArgExpr,
    CXXDefaultInitExpr,
    CXXDeleteExpr,
    CXXFunctionalCastExpr,
    CXXMemberCallExpr,
    CXXNewExpr,
    CXXNullPtrLiteralExpr,
    CXXOperatorCallExpr,
    CXXReinterpretCastExpr,
    CXXScalarValueInitExpr,
    CXXStaticCastExpr,
    CXXTemporaryObjectExpr,
    CXXThisExpr,
    CXXThrowExpr,
    DeclRefExpr,
    ExprWithCleanups,
    FixedPointLiteral,
    FloatingLiteral,
    GNUNullExpr,
    ImaginaryLiteral,
    ImplicitCastExpr,
    ImplicitValueInitExpr,
    InitListExpr,
    IntegerLiteral,
    LambdaExpr,
    MaterializeTemporaryExpr,
    MemberExpr,
    OpaqueValueExpr,
    ParenExpr,
    PredefinedExpr,
    PseudoObjectExpr,
    RecoveryExpr,
    StmtExpr,
    StringLiteral,
    SubstNonTypeTemplateParmExpr,
    UnaryExprOrTypeTraitExpr,
    UnaryOperator,
    UnresolvedLookupExpr,
    UserDefinedLiteral,
    // Attributes.
    AlignedAttr,
    CUDAConstantAttr,
    CUDADeviceAttr,
    CUDAGlobalAttr,
    CUDALaunchBoundsAttr,
    CUDAManagedAttr,
    CUDASharedAttr,
    LoopHintAttr,
    // Types and other nodes.
    CXXCtorInitializer,
    ElaboratedType,
    EnumType,
    ParenType,
    QualType,
    RecordType,
    TemplateArgument,
}

impl NodeKind {
    /// The kind named `name`: a listed one, else `Other` with the name interned by `intern`.
    pub fn from_name(name: &str, intern: impl FnOnce(&str) -> Sym) -> NodeKind {
        match NodeKind::table().get(name) {
            Some(&k) => k,
            None => NodeKind::Other(intern(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unlisted_kinds_keep_their_name() {
        for (&name, &k) in NodeKind::table() {
            assert_eq!(k.known_name(), Some(name));
            assert_eq!(NodeKind::from_name(name, |_| unreachable!("{name} is listed")), k);
        }
        assert_eq!(NodeKind::from_name("CoawaitExpr", |_| Sym(7)), NodeKind::Other(Sym(7)));
    }
}
