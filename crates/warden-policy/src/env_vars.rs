//! Environment variables that change what a program runs or where it reads
//! its configuration. Setting one (as a prefix, with `env`, `export` or a bare
//! assignment) makes a command write_or_unknown, however read-only it looks.

/// Names matched exactly.
const DANGEROUS: &[&str] = &[
    "PATH",
    "PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "EDITOR",
    "VISUAL",
    "BASH_ENV",
    "ENV",
    "SHELLOPTS",
    "BASHOPTS",
    "PROMPT_COMMAND",
    "PS4",
    "IFS",
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "ZDOTDIR",
    "LESSOPEN",
    "LESSCLOSE",
    "LESSKEY",
    "KUBECTL_EXTERNAL_DIFF",
    "KUBE_EDITOR",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GCONV_PATH",
    "HOSTALIASES",
    "BROWSER",
    "TERMINFO",
    "OPENSSL_CONF",
    "CURL_HOME",
    "WGETRC",
    "SYSTEMD_EDITOR",
    "SUDO_EDITOR",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PYTHONHOME",
    "PYTHONINSPECT",
    "PROMPT_COMMAND",
    "MYSQL_HOME",
    "PSQLRC",
    "PGSERVICEFILE",
    "SQLITE_HISTORY",
    "REDISCLI_RCFILE",
    "DOCKER_CONFIG",
    "TAR_OPTIONS",
    "GREP_OPTIONS",
    "RSYNC_RSH",
    "RSYNC_CONNECT_PROG",
    "FCEDIT",
    "TMOUT",
    "MAIL",
];

/// Prefixes that name families of dangerous variables.
const DANGEROUS_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "GIT_",
    "BASH_FUNC_",
    "PYTHON",
    "MALLOC_",
    "GLIBC_",
    "LC_CTYPE_PATH",
];

/// Suffixes used by many programs for pager and editor overrides.
const DANGEROUS_SUFFIXES: &[&str] = &["_PAGER", "_EDITOR", "_ASKPASS", "_OPTS_FILE"];

/// Would setting `name` change which code runs or which configuration is read?
pub fn is_dangerous(name: &str) -> bool {
    DANGEROUS.contains(&name)
        || DANGEROUS_PREFIXES.iter().any(|p| name.starts_with(p))
        || DANGEROUS_SUFFIXES.iter().any(|s| name.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::is_dangerous;

    #[test]
    fn table() {
        for name in [
            "LD_PRELOAD",
            "PAGER",
            "GIT_PAGER",
            "GIT_SSH_COMMAND",
            "EDITOR",
            "PATH",
            "SYSTEMD_PAGER",
            "KUBECTL_EXTERNAL_DIFF",
            "PYTHONSTARTUP",
        ] {
            assert!(is_dangerous(name), "{name}");
        }
        for name in [
            "KUBECONFIG",
            "NS",
            "LANG",
            "TZ",
            "TERM",
            "COLUMNS",
            "APP_NAME",
        ] {
            assert!(!is_dangerous(name), "{name}");
        }
    }
}
