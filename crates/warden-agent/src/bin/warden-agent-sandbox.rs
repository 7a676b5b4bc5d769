//! The sandbox launcher on its own: `warden-agent-sandbox -- PROGRAM ARGS…`
//! does what `warden agent sandbox-exec --landlock read-only -- …` does. The
//! agent's tests use it (they cannot run the `warden` binary, which depends
//! on this crate); installations use the `warden` subcommand.

use std::ffi::OsString;
use std::process::ExitCode;

use warden_agent::sandbox::{SandboxProfile, sandbox_and_exec};

fn main() -> ExitCode {
    let mut args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    }
    let error = sandbox_and_exec(SandboxProfile::ReadOnly, &args, &mut std::io::stdout());
    eprintln!("warden-agent-sandbox: {error}");
    ExitCode::from(127)
}
