//! The `tandem` command.

fn main() -> std::process::ExitCode {
    tandem::cli::main()
}
