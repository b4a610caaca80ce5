//! Types: Clang prints them as text (`const float *__restrict`, `ns::Tile<32, true>`,
//! `float (*)[65]`); this module parses that text and resolves names against the AST's
//! declarations (typedefs, records, enums, class template specializations), and lays out
//! records the way the NVPTX target does.

mod enums;
mod layout;
mod resolve;
mod spelling;
mod table;

pub use spelling::{parse, parse_int, Seg, TyExpr};
pub use table::{EnumInit, Field, Layout, TemplateArg, Types};
