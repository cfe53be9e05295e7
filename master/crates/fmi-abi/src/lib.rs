//! The C ABI of FMI 2.0 and FMI 3.0, and of Tandem's adjoint extension `org.tandem.adjoint`
//! (docs/adjoint-extension.md), written once.
//!
//! Both sides of the ABI use these declarations: `fmu-export` checks every function it
//! exports against the function type declared here, and the host resolves symbols into
//! these types. A status is an integer newtype rather than a Rust enum because a host must
//! survive any value a faulty binary returns; an out-of-range enum would be undefined
//! behaviour.
//!
//! The crate has no dependencies and holds no code beyond the types' formatting.

pub mod adjoint;
pub mod fmi2;
pub mod fmi3;
mod status;

#[cfg(test)]
mod tests {
    use super::{fmi2, fmi3};

    #[test]
    fn statuses_carry_the_standards_codes_and_names() {
        assert_eq!(fmi2::Status::Pending.0, 5);
        assert_eq!(fmi3::Status::Fatal.0, 4);
        assert_eq!(fmi2::Status::Discard.name(), Some("fmi2Discard"));
        assert_eq!(format!("{:?}", fmi3::Status::Ok), "fmi3OK");
        // A faulty binary may return any integer: it must stay printable, not undefined.
        assert_eq!(fmi3::Status(5).name(), None);
        assert_eq!(format!("{:?}", fmi3::Status(-1)), "fmi3Status(-1)");
        assert!(fmi2::Status::Warning < fmi2::Status::Discard);
    }
}
