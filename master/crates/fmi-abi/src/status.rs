//! The status newtype both standards share: the code, the names and how they print.

/// Declares a status newtype over `c_int` with one constant per status the standard names.
/// The constants are spelled like enum variants (`Status::Ok`) so that they read like the C
/// names and work as match patterns.
macro_rules! status {
    ($(#[$meta:meta])* $prefix:literal; $($(#[$doc:meta])* $name:ident = $code:literal, $c_name:literal;)*) => {
        $(#[$meta])*
        #[repr(transparent)]
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct Status(pub std::ffi::c_int);

        #[allow(non_upper_case_globals)]
        impl Status {
            $($(#[$doc])* pub const $name: Status = Status($code);)*

            /// The standard's name of the status (`fmi2OK`), or `None` for a code the
            /// standard does not define.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($code => Some($c_name),)*
                    _ => None,
                }
            }
        }

        impl From<Status> for std::ffi::c_int {
            fn from(status: Status) -> Self {
                status.0
            }
        }

        impl std::fmt::Debug for Status {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "{}Status({})", $prefix, self.0),
                }
            }
        }
    };
}

pub(crate) use status;
