//! Integer constant expressions of `#if`/`#elif`, evaluated in `i64` with wrapping arithmetic.
//!
//! Input tokens are already macro-expanded with `defined` resolved; remaining identifiers are 0
//! (`true` is 1). Unsigned arithmetic is approximated by signed 64-bit arithmetic.

use super::lex::{Kind, Tok};

/// Deepest nesting of parentheses / unary operators accepted.
const MAX_NESTING: usize = 256;

struct Parser<'a> {
    toks: Vec<(Kind, &'a str)>,
    pos: usize,
    nesting: usize,
}

/// Evaluates the `#if` expression `toks` (spellings relative to `src`).
pub(crate) fn eval(toks: &[Tok], src: &str) -> Result<i64, String> {
    let toks: Vec<(Kind, &str)> = toks
        .iter()
        .filter(|t| !t.kind.is_blank())
        .map(|t| (t.kind, t.text(src)))
        .collect();
    if toks.is_empty() {
        return Err("#if/#elif needs an expression, e.g. `#if N > 4`".into());
    }
    let mut p = Parser {
        toks,
        pos: 0,
        nesting: 0,
    };
    let v = p.ternary(true)?;
    match p.toks.get(p.pos) {
        None => Ok(v),
        Some((_, t)) => Err(format!("unexpected `{t}` in #if expression")),
    }
}

/// Binary operators: spelling and binding power (higher binds tighter).
fn binary_power(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.toks
            .get(self.pos)
            .filter(|(k, _)| *k == Kind::Punct)
            .map(|(_, t)| *t)
    }

    fn expect(&mut self, p: &str) -> Result<(), String> {
        if self.peek() == Some(p) {
            self.pos += 1;
            Ok(())
        } else {
            let found = self.toks.get(self.pos).map_or("end of line", |(_, t)| t);
            Err(format!("expected `{p}` in #if expression, found `{found}`"))
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.nesting += 1;
        if self.nesting > MAX_NESTING {
            return Err(format!("#if expression nested more than {MAX_NESTING} levels deep"));
        }
        Ok(())
    }

    /// `live` is false inside branches that are not evaluated (so `0 && 1/0` is fine).
    fn ternary(&mut self, live: bool) -> Result<i64, String> {
        self.enter()?;
        let cond = self.binary(0, live)?;
        let v = if self.peek() == Some("?") {
            self.pos += 1;
            let a = self.ternary(live && cond != 0)?;
            self.expect(":")?;
            let b = self.ternary(live && cond == 0)?;
            if cond != 0 {
                a
            } else {
                b
            }
        } else {
            cond
        };
        self.nesting -= 1;
        Ok(v)
    }

    fn binary(&mut self, min_power: u8, live: bool) -> Result<i64, String> {
        let mut lhs = self.unary(live)?;
        while let Some(op) = self.peek() {
            let Some(power) = binary_power(op) else { break };
            if power <= min_power {
                break;
            }
            self.pos += 1;
            let rhs_live = match op {
                "&&" => live && lhs != 0,
                "||" => live && lhs == 0,
                _ => live,
            };
            let rhs = self.binary(power, rhs_live)?;
            lhs = apply(op, lhs, rhs, rhs_live)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self, live: bool) -> Result<i64, String> {
        let Some(&(kind, text)) = self.toks.get(self.pos) else {
            return Err("#if expression ends too early".into());
        };
        self.pos += 1;
        match kind {
            Kind::Number => parse_number(text),
            Kind::Char => parse_char(text),
            Kind::Ident => Ok(i64::from(text == "true")),
            Kind::Punct => {
                self.enter()?;
                let v = match text {
                    "(" => {
                        let v = self.ternary(live)?;
                        self.expect(")")?;
                        v
                    }
                    "+" => self.unary(live)?,
                    "-" => self.unary(live)?.wrapping_neg(),
                    "~" => !self.unary(live)?,
                    "!" => i64::from(self.unary(live)? == 0),
                    _ => return Err(format!("unexpected `{text}` in #if expression")),
                };
                self.nesting -= 1;
                Ok(v)
            }
            _ => Err(format!("`{text}` cannot appear in a #if expression")),
        }
    }
}

fn apply(op: &str, a: i64, b: i64, live: bool) -> Result<i64, String> {
    Ok(match op {
        "||" => i64::from(a != 0 || b != 0),
        "&&" => i64::from(a != 0 && b != 0),
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => i64::from(a == b),
        "!=" => i64::from(a != b),
        "<" => i64::from(a < b),
        ">" => i64::from(a > b),
        "<=" => i64::from(a <= b),
        ">=" => i64::from(a >= b),
        "<<" => u32::try_from(b).ok().and_then(|s| a.checked_shl(s)).unwrap_or(0),
        ">>" => u32::try_from(b)
            .ok()
            .and_then(|s| a.checked_shr(s))
            .unwrap_or(if a < 0 { -1 } else { 0 }),
        "+" => a.wrapping_add(b),
        "-" => a.wrapping_sub(b),
        "*" => a.wrapping_mul(b),
        "/" | "%" if b == 0 => {
            if live {
                return Err("division by zero in #if expression".into());
            }
            0
        }
        "/" => a.wrapping_div(b),
        "%" => a.wrapping_rem(b),
        _ => return Err(format!("unknown operator `{op}`")),
    })
}

/// Value of an integer literal such as `42`, `0x1Fu`, `0b101`, `0755`, `1'000'000ULL`.
fn parse_number(text: &str) -> Result<i64, String> {
    let digits: String = text.chars().filter(|&c| c != '\'').collect();
    let trimmed = digits.trim_end_matches(['u', 'U', 'l', 'L', 'z', 'Z']);
    let lower = trimmed.to_ascii_lowercase();
    let (radix, body) = if let Some(h) = lower.strip_prefix("0x") {
        (16, h)
    } else if let Some(b) = lower.strip_prefix("0b") {
        (2, b)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    match u64::from_str_radix(body, radix) {
        Ok(v) => Ok(v as i64),
        Err(e) if *e.kind() == std::num::IntErrorKind::PosOverflow => {
            Err(format!("integer constant `{text}` is too large for #if"))
        }
        Err(_) => Err(format!("`{text}` is not an integer constant; #if only takes integers")),
    }
}

/// Value of a character literal such as `'a'`, `'\n'`, `'\x41'`.
fn parse_char(text: &str) -> Result<i64, String> {
    let start = text.find('\'').map_or(text.len(), |i| i + 1);
    let inner = text[start..].strip_suffix('\'').unwrap_or(&text[start..]);
    let mut chars = inner.chars();
    let mut value: i64 = 0;
    let mut any = false;
    while let Some(c) = chars.next() {
        let v = if c == '\\' {
            match chars.next() {
                Some('n') => 10,
                Some('t') => 9,
                Some('r') => 13,
                Some(d @ '0'..='7') => {
                    // Up to three octal digits.
                    let mut v = i64::from(d as u8 - b'0');
                    for _ in 0..2 {
                        match chars.clone().next() {
                            Some(o @ '0'..='7') => {
                                v = v * 8 + i64::from(o as u8 - b'0');
                                chars.next();
                            }
                            _ => break,
                        }
                    }
                    v
                }
                Some('x') => {
                    let hex: String = chars.clone().take_while(|c| c.is_ascii_hexdigit()).collect();
                    for _ in 0..hex.len() {
                        chars.next();
                    }
                    i64::from_str_radix(&hex, 16).unwrap_or(0)
                }
                Some('a') => 7,
                Some('b') => 8,
                Some('f') => 12,
                Some('v') => 11,
                Some(other) => other as i64,
                None => return Err(format!("bad character constant {text}")),
            }
        } else {
            c as i64
        };
        any = true;
        value = value.wrapping_shl(8) | (v & 0xff);
        if !c.is_ascii() {
            value = c as i64;
        }
    }
    if !any {
        return Err(format!("empty character constant {text}"));
    }
    Ok(value)
}
