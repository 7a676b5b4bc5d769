//! The confinement launcher on its own: what `warden __warden-confine`
//! does, in a program small enough to start in a fraction of a
//! millisecond (the `warden` binary's dynamic relocations alone cost about
//! 2 ms per command). `warden` uses it when it sits beside `warden`, and
//! runs itself as the launcher otherwise.

fn main() {
    let mut args = std::env::args_os().skip(1).peekable();
    // `warden_confine::launcher_args` starts with the subcommand name.
    if args.peek().map(|a| a.as_os_str()) == Some(std::ffi::OsStr::new(warden_confine::CONFINE_ARG))
    {
        args.next();
    }
    warden_confine::run_confined(args)
}
