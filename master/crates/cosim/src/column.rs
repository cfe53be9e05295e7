//! Result columns named after a variable or one of its FMI 3.0 aliases (or an element of an
//! array, `y[2]`): the name in the header, the element shown and, for an alias with a display
//! unit, the unit its values are written in.
//!
//! Systems and single-FMU simulations choose their columns when they are set up; the result
//! writers only show them, so the columns sit below both.

use fmi_host::model_description::{element_names, DisplayUnit, ModelDescription, Variable};

/// What one recorded column shows of its variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// The name in the header (the variable's or the alias's).
    pub name: String,
    /// The alias's display unit, into which the values are converted.
    pub display_unit: Option<DisplayUnit>,
    /// For an array, the row-major position of the element shown (`None` for a scalar).
    pub element: Option<usize>,
}

impl Column {
    /// The variable or alias called `name`, and its column; `None` when `md` has no such name.
    pub fn named<'a>(md: &'a ModelDescription, name: &str) -> Option<(&'a Variable, Column)> {
        let (variable, alias) = md.named(name)?;
        // The standard leaves an alias's value that of its variable; the display unit only
        // changes how it is shown, and only floats have units.
        let display_unit = alias
            .filter(|_| variable.ty.is_float())
            .and_then(|alias| md.alias_display_unit(variable, alias))
            .cloned();
        Some((
            variable,
            Column {
                name: name.to_string(),
                display_unit,
                element: None,
            },
        ))
    }

    /// The column of `variable` under its own name.
    pub fn plain(variable: &Variable) -> Column {
        Column {
            name: variable.name.clone(),
            display_unit: None,
            element: None,
        }
    }

    /// The columns of every element of `column`'s variable, of shape `shape`, in row-major
    /// order and named `y[1]`, `y[2]`, ... after the column (the column itself for a scalar).
    pub fn elements(self, shape: &[usize]) -> Vec<Column> {
        if shape.is_empty() {
            return vec![self];
        }
        element_names(&self.name, shape)
            .into_iter()
            .enumerate()
            .map(|(i, name)| Column {
                name,
                display_unit: self.display_unit.clone(),
                element: Some(i),
            })
            .collect()
    }

    /// The number written for the value `value` of the variable.
    pub fn show(&self, value: f64) -> f64 {
        self.display_unit
            .as_ref()
            .map_or(value, |unit| unit.from_unit(value))
    }
}
