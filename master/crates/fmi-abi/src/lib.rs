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
