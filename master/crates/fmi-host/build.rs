//! Compiles the C shim that formats FMI 2.0 log messages (a C-variadic callback).

fn main() {
    println!("cargo:rerun-if-changed=src/instance/fmi2_logger.c");
    cc::Build::new()
        .file("src/instance/fmi2_logger.c")
        .warnings(true)
        .compile("tandem_fmi2_logger");
}
