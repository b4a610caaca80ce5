use std::process::ExitCode;

fn main() -> ExitCode {
    autosync::cli::main()
}
