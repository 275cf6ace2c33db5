//! Signature help inside a call: the built-in's parameters (the active one
//! by counting the commas before the cursor, variadics included), and for
//! `invoke("name", { ... })` the user function's arguments.

use crate::cursor::Cursor;
use crate::program::Program;
use crate::walk::{Entry, Kind};
use crate::{FilePosition, Snapshot};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureHelp {
    pub signature: SignatureInfo,
    /// Index into [`SignatureInfo::parameters`], if the cursor is at one.
    pub active_parameter: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureInfo {
    pub label: String,
    /// Markdown.
    pub documentation: Option<String>,
    /// Each parameter: its byte range in `label` and its documentation.
    pub parameters: Vec<((u32, u32), Option<String>)>,
}

/// The call around `pos`, if any.
pub fn signature_help(snap: &Snapshot, pos: FilePosition) -> Option<SignatureHelp> {
    let file = snap.sources().get(pos.file);
    let c = Cursor::new(&file.text, pos.offset);
    if c.in_comment {
        return None;
    }
    let pi = c
        .frames
        .iter()
        .rposition(|f| matches!(&f.kind, Kind::Paren { func: Some(_), .. }))?;
    let Kind::Paren {
        func: Some(func),
        commas,
        first_string,
    } = &c.frames[pi].kind
    else {
        return None;
    };
    if func == "invoke"
        && *commas >= 1
        && let Some(name) = first_string
    {
        return user_function(snap, pos, &c, pi, name);
    }
    let f = fnhcl_functions::registry().get(func)?;
    let sig = f.signature();
    let parameters = split_params(&sig)
        .into_iter()
        .map(|r| (r, None))
        .collect::<Vec<_>>();
    let active = if *commas < f.params.len() {
        Some(*commas)
    } else if f.variadic.is_some() {
        Some(f.params.len())
    } else {
        None
    };
    Some(SignatureHelp {
        active_parameter: active.filter(|a| *a < parameters.len()).map(|a| a as u32),
        signature: SignatureInfo {
            label: sig,
            documentation: Some(f.description.to_owned()),
            parameters,
        },
    })
}

/// `invoke("name", { a = ..., b = ... })`: the arguments of user function
/// `name`; the active one is the key being written in the object.
fn user_function(
    snap: &Snapshot,
    pos: FilePosition,
    c: &Cursor<'_>,
    pi: usize,
    name: &str,
) -> Option<SignatureHelp> {
    let program = Program::new(snap, pos.file);
    let uf = program.functions().into_iter().find(|f| f.name == name)?;
    let mut label = format!("invoke(\"{name}\", {{ ");
    let mut parameters = Vec::new();
    for (i, (arg, description, optional)) in uf.args.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let start = label.len() as u32;
        label.push_str(arg);
        if *optional {
            label.push('?');
        }
        parameters.push(((start, label.len() as u32), description.clone()));
    }
    label.push_str(" })");
    let key = c.frames.get(pi + 1).and_then(|f| {
        if f.kind != Kind::Object {
            return None;
        }
        // The key being written: the object's own entry when the cursor is
        // directly in it, else the key whose value holds the cursor.
        let entry = match c.frames.get(pi + 2) {
            Some(inner) => inner.key.as_deref(),
            None => match &f.entry {
                Entry::Header { name, .. } | Entry::Value { name } => Some(name.as_str()),
                Entry::Start => Some(c.word()),
            },
        };
        entry.map(str::to_owned)
    });
    let active = key.and_then(|k| {
        let exact = uf.args.iter().position(|a| a.0 == k);
        // A name being typed: the first argument it can become.
        exact.or_else(|| {
            (!k.is_empty()).then(|| uf.args.iter().position(|a| a.0.starts_with(&k)))?
        })
    });
    Some(SignatureHelp {
        signature: SignatureInfo {
            label,
            documentation: uf.description,
            parameters,
        },
        active_parameter: active.map(|a| a as u32),
    })
}

/// Byte ranges of the parameters in a signature `name(a T, b ...U) R`:
/// split at the top-level commas between the first `(` and its match.
fn split_params(sig: &str) -> Vec<(u32, u32)> {
    let Some(open) = sig.find('(') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = open + 1;
    for (i, ch) in sig.char_indices().skip_while(|(i, _)| *i <= open) {
        match ch {
            '(' => depth += 1,
            ')' if depth == 0 => {
                if i > start {
                    out.push((start as u32, i as u32));
                }
                break;
            }
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push((start as u32, i as u32));
                start = i + 2;
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_split_at_top_level_commas() {
        let s = "f(a list(string), b ...map(number)) string";
        let r: Vec<&str> = split_params(s)
            .iter()
            .map(|(a, b)| &s[*a as usize..*b as usize])
            .collect();
        assert_eq!(r, ["a list(string)", "b ...map(number)"]);
        assert!(split_params("g() string").is_empty());
    }
}
