//! Getting and setting String variables. The texts a getter returns are owned by the instance
//! and stay valid until the next String getter call on it, or until it is freed (the FMI 2.0
//! section 2.1.7 and FMI 3.0 section 2.2.6.2 lifetime rules are no longer than that).

use std::ffi::CString;

use crate::instance::outcome::{Outcome, Problem};
use crate::instance::Instance;
use crate::system::System;
use crate::variables::{Role, ValueReference, VarType};

/// The C strings handed out by the last String getter call.
#[derive(Default)]
pub struct ReturnedStrings {
    texts: Vec<CString>,
}

impl<S: System> Instance<S> {
    /// fmiGetString: the values of `vrs`, as C strings the instance owns until the next call.
    /// Nothing is returned unless every reference is valid and every text is representable
    /// in C (no interior NUL byte).
    pub fn get_strings(&mut self, vrs: &[ValueReference]) -> Outcome<&[CString]> {
        let roles: Vec<Role> = vrs
            .iter()
            .map(|&vr| Ok(self.variable(vr, VarType::String)?.role))
            .collect::<Outcome<_>>()?;
        let computed = if roles.iter().any(|r| matches!(r, Role::StringOutput(_))) {
            self.string_outputs()
        } else {
            Vec::new()
        };
        let mut texts = Vec::with_capacity(roles.len());
        for role in roles {
            let text = match role {
                Role::StringParameter(i) => &self.state.s[i],
                Role::StringOutput(i) => &computed[i],
                _ => unreachable!("`variable` returned a String variable"),
            };
            let c = CString::new(text.as_str()).map_err(|_| {
                Problem::error(format!(
                    "{} holds a NUL byte, which C strings cannot carry",
                    self.name_of(role)
                ))
            })?;
            texts.push(c);
        }
        self.returned.texts = texts;
        Ok(&self.returned.texts)
    }

    /// fmiSetString: all or nothing, like the numeric setters (String parameters only,
    /// before initialization ends).
    pub fn set_strings(&mut self, vrs: &[ValueReference], values: &[&str]) -> Outcome {
        if vrs.len() != values.len() {
            return Err(Problem::error(format!(
                "{} values for {} value references (only scalar variables exist)",
                values.len(),
                vrs.len()
            )));
        }
        let mut writes = Vec::with_capacity(vrs.len());
        for (&vr, &value) in vrs.iter().zip(values) {
            let var = self.variable(vr, VarType::String)?;
            self.check_settable(var)?;
            let Role::StringParameter(i) = var.role else {
                unreachable!("check_settable accepts String parameters only")
            };
            writes.push((i, value));
        }
        for (i, value) in writes {
            self.state.s[i].clear();
            self.state.s[i].push_str(value);
        }
        Ok(())
    }

    /// The String outputs at the current point, as the model writes them.
    fn string_outputs(&self) -> Vec<String> {
        let count = self.declaration().string_outputs().count();
        let mut out = vec![String::new(); count];
        self.sys
            .string_outputs(&self.args(), &self.state.s, &mut out);
        out
    }
}
