//! Model variables: type, causality, variability, initial, start value and the attributes
//! that depend on the type.

use std::fmt;

macro_rules! keyword_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vdoc])* $variant),+ }

        impl $name {
            /// The keyword as written in modelDescription.xml.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            /// The value for a keyword of modelDescription.xml.
            pub fn from_keyword(text: &str) -> Option<Self> {
                match text { $($text => Some($name::$variant),)+ _ => None }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

keyword_enum! {
    /// The data type of a variable (FMI 2.0 Real/Integer map to Float64/Int32), whose keyword
    /// is its FMI 3.0 element name.
    VariableType {
        /// FMI 3.0 Float32.
        Float32 = "Float32",
        /// FMI 3.0 Float64, FMI 2.0 Real.
        Float64 = "Float64",
        /// FMI 3.0 Int8.
        Int8 = "Int8",
        /// FMI 3.0 UInt8.
        UInt8 = "UInt8",
        /// FMI 3.0 Int16.
        Int16 = "Int16",
        /// FMI 3.0 UInt16.
        UInt16 = "UInt16",
        /// FMI 3.0 Int32, FMI 2.0 Integer.
        Int32 = "Int32",
        /// FMI 3.0 UInt32.
        UInt32 = "UInt32",
        /// FMI 3.0 Int64.
        Int64 = "Int64",
        /// FMI 3.0 UInt64.
        UInt64 = "UInt64",
        /// Boolean.
        Boolean = "Boolean",
        /// String.
        String = "String",
        /// FMI 3.0 Binary (byte arrays).
        Binary = "Binary",
        /// FMI 3.0 Clock.
        Clock = "Clock",
        /// Enumeration (Int64 values in FMI 3.0, Integer values in FMI 2.0).
        Enumeration = "Enumeration",
    }
}

impl VariableType {
    /// Float32 or Float64.
    pub fn is_float(self) -> bool {
        matches!(self, VariableType::Float32 | VariableType::Float64)
    }

    /// Any of the integer types or an enumeration.
    pub fn is_integer(self) -> bool {
        use VariableType::*;
        matches!(
            self,
            Int8 | UInt8 | Int16 | UInt16 | Int32 | UInt32 | Int64 | UInt64 | Enumeration
        )
    }

    /// A float or integer type, whose values can be recorded as numbers.
    pub fn is_numeric(self) -> bool {
        self.is_float() || self.is_integer()
    }

    /// The element name of FMI 3.0 (`Float64`, `Int8`, ...), also used for display.
    pub fn fmi3_name(self) -> &'static str {
        self.as_str()
    }

    /// The FMI 2.0 type for an element name (`Real`, `Integer`, `Boolean`, `String`, `Enumeration`).
    pub fn from_fmi2_name(name: &str) -> Option<Self> {
        match name {
            "Real" => Some(VariableType::Float64),
            "Integer" => Some(VariableType::Int32),
            "Boolean" => Some(VariableType::Boolean),
            "String" => Some(VariableType::String),
            "Enumeration" => Some(VariableType::Enumeration),
            _ => None,
        }
    }
}

keyword_enum! {
    /// What a variable is for (`causality`).
    Causality {
        /// Independent parameter.
        Parameter = "parameter",
        /// Parameter computed from others during initialization.
        CalculatedParameter = "calculatedParameter",
        /// Input from outside.
        Input = "input",
        /// Output to outside.
        Output = "output",
        /// Internal variable.
        Local = "local",
        /// The independent variable (time).
        Independent = "independent",
        /// FMI 3.0 structural parameter (array sizes).
        StructuralParameter = "structuralParameter",
    }
}

keyword_enum! {
    /// When a variable may change (`variability`).
    Variability {
        /// Never changes.
        Constant = "constant",
        /// Fixed after initialization.
        Fixed = "fixed",
        /// Changes only at events triggered by the environment.
        Tunable = "tunable",
        /// Changes only at events.
        Discrete = "discrete",
        /// May change at any time (floats only).
        Continuous = "continuous",
    }
}

keyword_enum! {
    /// How a variable is initialized (`initial`).
    Initial {
        /// Initialized with its start value.
        Exact = "exact",
        /// Start value is an iteration guess.
        Approx = "approx",
        /// Computed during initialization.
        Calculated = "calculated",
    }
}

/// The default `initial` for a causality/variability combination, `None` where the standard
/// allows no `initial` attribute (inputs, independent variable) or the combination is invalid.
pub fn default_initial(causality: Causality, variability: Variability) -> Option<Initial> {
    use Causality::*;
    use Variability::*;
    match (causality, variability) {
        (Output | Local, Constant) => Some(Initial::Exact),
        (Parameter | StructuralParameter, Fixed | Tunable) => Some(Initial::Exact),
        (CalculatedParameter | Local, Fixed | Tunable) => Some(Initial::Calculated),
        (Output | Local, Discrete | Continuous) => Some(Initial::Calculated),
        _ => None,
    }
}

/// Typed values at the widest precision of their kind: the start values of a variable (one
/// per array element) or the values of a batch of variables read from or written to an FMU.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// Float32/Float64 values.
    Float(Vec<f64>),
    /// Signed integer and enumeration values.
    Int(Vec<i64>),
    /// Unsigned integer values.
    UInt(Vec<u64>),
    /// Boolean values.
    Bool(Vec<bool>),
    /// String values.
    String(Vec<String>),
    /// Binary values.
    Binary(Vec<Vec<u8>>),
}

impl Values {
    /// Parses one text per value as values of type `ty` (xs:boolean, hex binary, ...).
    pub fn parse(ty: VariableType, texts: &[&str]) -> Result<Values, std::string::String> {
        fn each<T>(
            texts: &[&str],
            ty: VariableType,
            parse: impl Fn(&str) -> Option<T>,
        ) -> Result<Vec<T>, std::string::String> {
            texts
                .iter()
                .map(|t| parse(t.trim()).ok_or_else(|| format!("\"{t}\" is not a valid {ty}")))
                .collect()
        }
        use VariableType::*;
        Ok(match ty {
            Float32 | Float64 => Values::Float(each(texts, ty, |t| t.parse().ok())?),
            Int8 | Int16 | Int32 | Int64 | Enumeration => {
                Values::Int(each(texts, ty, |t| t.parse().ok())?)
            }
            UInt8 | UInt16 | UInt32 | UInt64 => Values::UInt(each(texts, ty, |t| t.parse().ok())?),
            Boolean | Clock => Values::Bool(each(texts, ty, super::xml::parse_bool)?),
            String => Values::String(texts.iter().map(|t| t.to_string()).collect()),
            Binary => Values::Binary(each(texts, ty, parse_hex)?),
        })
    }

    /// Numbers as values of type `ty`: floats as they are, integers rounded, booleans true
    /// when non-zero (the master carries every numeric or boolean signal as `f64`). String,
    /// Binary and Clock variables hold no numbers: they get float values, which writing rejects.
    pub fn from_numbers(ty: VariableType, numbers: &[f64]) -> Values {
        use VariableType::*;
        match ty {
            Boolean => Values::Bool(numbers.iter().map(|&x| x != 0.0).collect()),
            UInt8 | UInt16 | UInt32 | UInt64 => {
                Values::UInt(numbers.iter().map(|&x| x.round() as u64).collect())
            }
            Int8 | Int16 | Int32 | Int64 | Enumeration => {
                Values::Int(numbers.iter().map(|&x| x.round() as i64).collect())
            }
            Float32 | Float64 | String | Binary | Clock => Values::Float(numbers.to_vec()),
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::Float(v) => v.len(),
            Values::Int(v) => v.len(),
            Values::UInt(v) => v.len(),
            Values::Bool(v) => v.len(),
            Values::String(v) => v.len(),
            Values::Binary(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` as a float, for numeric and boolean values.
    pub fn f64_at(&self, i: usize) -> Option<f64> {
        match self {
            Values::Float(v) => v.get(i).copied(),
            Values::Int(v) => v.get(i).map(|&x| x as f64),
            Values::UInt(v) => v.get(i).map(|&x| x as f64),
            Values::Bool(v) => v.get(i).map(|&b| if b { 1.0 } else { 0.0 }),
            Values::String(_) | Values::Binary(_) => None,
        }
    }

    /// The first (or only) value as a float, for numeric and boolean values.
    pub fn as_f64(&self) -> Option<f64> {
        self.f64_at(0)
    }
}

impl fmt::Display for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn join<T: fmt::Display>(f: &mut fmt::Formatter<'_>, values: &[T]) -> fmt::Result {
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    f.write_str(" ")?;
                }
                write!(f, "{value}")?;
            }
            Ok(())
        }
        match self {
            Values::Float(v) => join(f, v),
            Values::Int(v) => join(f, v),
            Values::UInt(v) => join(f, v),
            Values::Bool(v) => join(f, v),
            Values::String(v) => join(f, &v.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>()),
            Values::Binary(v) => join(
                f,
                &v.iter()
                    .map(|bytes| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
                    .collect::<Vec<_>>(),
            ),
        }
    }
}

fn parse_hex(text: &str) -> Option<Vec<u8>> {
    let digits = text.strip_prefix("0x").unwrap_or(text);
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
        .collect()
}

/// One array dimension of an FMI 3.0 variable: a fixed size or a structural parameter.
#[derive(Debug, Clone, PartialEq)]
pub enum Dimension {
    /// Fixed size.
    Fixed(u64),
    /// Size given by the structural parameter with this value reference.
    Parameter(u32),
}

/// An FMI 3.0 alias of a variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Alias {
    /// Alias name.
    pub name: String,
    /// Description of the alias.
    pub description: Option<String>,
    /// Display unit of the alias.
    pub display_unit: Option<String>,
}

/// One model variable.
#[derive(Debug, Clone, PartialEq)]
pub struct Variable {
    /// Unique name.
    pub name: String,
    /// Value reference used in every get/set call.
    pub value_reference: u32,
    /// Data type.
    pub ty: VariableType,
    /// Description.
    pub description: Option<String>,
    /// Causality (default `local`).
    pub causality: Causality,
    /// Variability (default `continuous` for floats, `discrete` otherwise).
    pub variability: Variability,
    /// `initial` as written in the file; see [`Variable::initial`] for the effective value.
    pub initial_attribute: Option<Initial>,
    /// Start value(s).
    pub start: Option<Values>,
    /// Name of a type definition this variable refers to.
    pub declared_type: Option<String>,
    /// Physical quantity.
    pub quantity: Option<String>,
    /// Unit (the declared type's unit applies when absent; see [`super::ModelDescription::unit_of`]).
    pub unit: Option<String>,
    /// Display unit.
    pub display_unit: Option<String>,
    /// Lower bound.
    pub min: Option<f64>,
    /// Upper bound.
    pub max: Option<f64>,
    /// Nominal value (floats).
    pub nominal: Option<f64>,
    /// For a derivative: the state it is the derivative of (FMI 2.0: 1-based variable index,
    /// FMI 3.0: value reference).
    pub derivative: Option<u32>,
    /// Whether the state may be reinitialized at events.
    pub reinit: bool,
    /// Array dimensions (FMI 3.0; empty for scalars).
    pub dimensions: Vec<Dimension>,
    /// Value references of the clocks this variable belongs to (FMI 3.0).
    pub clocks: Vec<u32>,
    /// The attributes of a Clock variable (FMI 3.0; `None` for other types).
    pub clock: Option<super::ClockAttributes>,
    /// Aliases (FMI 3.0).
    pub aliases: Vec<Alias>,
    /// Line of the variable in modelDescription.xml, for messages.
    pub line: usize,
}

impl Variable {
    /// The effective `initial`: the attribute, or the standard's default for the
    /// causality/variability combination.
    pub fn initial(&self) -> Option<Initial> {
        self.initial_attribute
            .or_else(|| default_initial(self.causality, self.variability))
    }

    /// Whether the variable is a scalar (no array dimensions).
    pub fn is_scalar(&self) -> bool {
        self.dimensions.is_empty()
    }
}
