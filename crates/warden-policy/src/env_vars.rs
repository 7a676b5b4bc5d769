//! Environment variables. Set for a command (as a prefix, with `env`,
//! `export`, `declare -x` or a container's `-e`), a variable is an
//! ALLOWLIST: only the ones known to be harmless, with values of the
//! expected form, keep a read a read ([`assignment_refusal`]). Anything
//! else may change which code runs, which configuration or helper a
//! program reads, or where it writes logs or key material
//! (`SSLKEYLOGFILE`, `TF_LOG_PATH`, `WGETRC`, `LD_PRELOAD`, …).
//!
//! The denylist below names variables known to be dangerous: it gives a
//! better reason, and it decides shell variables set without a command
//! (`x=1; …`), which are not exported unless the environment already
//! exports that name.

/// What a harmless variable's value may be.
#[derive(Clone, Copy)]
enum Value {
    /// A locale name (`C`, `en_US.UTF-8`, `de_DE@euro`); never a path.
    Locale,
    /// A colon-separated list of locale names (`LANGUAGE`).
    Locales,
    /// A time zone (`UTC`, `Europe/Berlin`, `EST5EDT,M3.2.0,M11.1.0`), no `..`.
    TimeZone,
    /// Digits.
    Number,
    /// A word (`xterm-256color`, `noninteractive`, `true`, `0`).
    Word,
    /// Any literal text (a format, a marker variable's value).
    Text,
    /// Empty or `cat`: no pager.
    NoPager,
    /// A kubeconfig in the administrators' config directories.
    Kubeconfig,
}

/// The variables known to be harmless, and what their values may be.
const HARMLESS: &[(&str, Value)] = &[
    ("LANG", Value::Locale),
    ("LANGUAGE", Value::Locales),
    ("LC_ALL", Value::Locale),
    ("LC_ADDRESS", Value::Locale),
    ("LC_COLLATE", Value::Locale),
    ("LC_CTYPE", Value::Locale),
    ("LC_IDENTIFICATION", Value::Locale),
    ("LC_MEASUREMENT", Value::Locale),
    ("LC_MESSAGES", Value::Locale),
    ("LC_MONETARY", Value::Locale),
    ("LC_NAME", Value::Locale),
    ("LC_NUMERIC", Value::Locale),
    ("LC_PAPER", Value::Locale),
    ("LC_TELEPHONE", Value::Locale),
    ("LC_TIME", Value::Locale),
    ("TZ", Value::TimeZone),
    ("COLUMNS", Value::Number),
    ("LINES", Value::Number),
    ("TERM", Value::Word),
    ("NO_COLOR", Value::Text),
    ("CLICOLOR", Value::Word),
    ("CLICOLOR_FORCE", Value::Word),
    ("TIME_STYLE", Value::Text),
    ("PAGER", Value::NoPager),
    ("MANPAGER", Value::NoPager),
    ("SYSTEMD_PAGER", Value::NoPager),
    ("SYSTEMD_COLORS", Value::Word),
    ("SYSTEMD_PAGERSECURE", Value::Word),
    ("SYSTEMD_URLIFY", Value::Word),
    ("DEBIAN_FRONTEND", Value::Word),
    ("GIT_TERMINAL_PROMPT", Value::Word),
    ("GIT_OPTIONAL_LOCKS", Value::Word),
    ("KUBECONFIG", Value::Kubeconfig),
    // Not `GIT_PAGER`, even `cat`: git's own variables stay refused, one
    // rule for the family (`GIT_SSH_COMMAND`, `GIT_CONFIG_*`, `GIT_DIR`).
];

/// Is `value` (as written; `literal` when it has no expansion) of the form
/// `kind` allows?
fn value_ok(kind: Value, value: &str, literal: bool) -> bool {
    let word = |extra: &str| {
        value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || extra.as_bytes().contains(&b))
    };
    match kind {
        Value::Kubeconfig => kubeconfig_ok(value, literal),
        _ if !literal => false,
        Value::Locale => word("_.@-"),
        Value::Locales => word("_.@-:"),
        Value::TimeZone => word("_+-/:,.<>") && !value.contains("..") && !value.starts_with('/'),
        Value::Number => value.bytes().all(|b| b.is_ascii_digit()),
        Value::Word => word("_.+-"),
        Value::Text => true,
        Value::NoPager => matches!(value, "" | "cat"),
    }
}

/// Why setting `name` to `value` for a command (as written, `literal` when
/// the value has no expansion) could change what the command does; `None`
/// when the variable is known to be harmless with that value.
pub fn assignment_refusal(name: &str, value: &str, literal: bool) -> Option<String> {
    match HARMLESS.iter().find(|(n, _)| *n == name) {
        Some(&(_, kind)) if value_ok(kind, value, literal) => None,
        Some(_) if name == "KUBECONFIG" => Some(
            "`KUBECONFIG` names a file outside the administrators' config directories: \
             its `exec` plugins run programs"
                .to_string(),
        ),
        Some(_) => Some(format!(
            "`{name}={value}`: a value that is not known to be harmless"
        )),
        None if is_dangerous(name) => Some(format!(
            "setting `{name}` changes what programs run or which configuration they read"
        )),
        None => Some(format!(
            "setting `{name}` for a command: only variables known to be harmless \
             (locale, time zone, terminal, no pager) keep a read a read"
        )),
    }
}

/// Why setting a shell variable without a command (`NAME=value; …`) could
/// change what later commands do. It reaches them only when the
/// environment already exports `NAME`, so the known dangerous names are
/// refused (and the harmless ones checked), not every unknown one.
pub fn bare_assignment_refusal(name: &str, value: &str, literal: bool) -> Option<String> {
    if HARMLESS.iter().any(|(n, _)| *n == name) || is_dangerous(name) {
        return assignment_refusal(name, value, literal);
    }
    None
}

/// Known dangerous names, matched exactly.
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
    "SHELL",
    "CDPATH",
    "LOCPATH",
    "NLSPATH",
    "RESOLV_HOST_CONF",
    "OPENSSL_ENGINES",
    "RIPGREP_CONFIG_PATH",
    "HELM_PLUGINS",
    "DOCKER_CLI_PLUGIN_EXTRA_DIRS",
    "AWS_CONFIG_FILE",
    "AWS_SHARED_CREDENTIALS_FILE",
    "CLOUDSDK_CONFIG",
    "AZURE_CONFIG_DIR",
    "ANSIBLE_CONFIG",
    "LUA_INIT",
    "MANOPT",
    "MANPAGER",
    "PSQL_PAGER",
    "MYSQL_HISTFILE",
    "PSQL_HISTORY",
    "SSH_CONFIG",
    "BASH_XTRACEFD",
    "PROMPT_COMMAND",
    "PS0",
    "PS1",
    "PS2",
    "INPUTRC",
    "HISTFILE",
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
    "ZPOOL_SCRIPT",
    "SYSTEMD_",
    "SSLKEYLOG",
    "HTTPIE_",
    "DOCKER_",
    "KUBE",
    "WGET",
    "CURL_",
    "OPENSSL_",
    "PERL5",
    "RUBY",
    "NODE_",
];

/// Where administrators keep kubeconfigs (`/etc/kubernetes/admin.conf`,
/// `/etc/rancher/k3s/k3s.yaml`, `~/.kube/config`).
const CONFIG_DIRS: &[&str] = &[
    "/etc/",
    "~/.kube/",
    "$HOME/.kube/",
    "${HOME}/.kube/",
    "/root/.kube/",
    "/var/snap/microk8s/",
    "/var/lib/k0s/",
    "/var/lib/rancher/",
];

/// Is `path` a config file in one of [`CONFIG_DIRS`] (or a user's `~/.kube`)?
fn is_admin_config(path: &str) -> bool {
    let in_home_kube = path
        .strip_prefix("/home/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(_, rest)| rest.starts_with(".kube/"));
    (in_home_kube || CONFIG_DIRS.iter().any(|dir| path.starts_with(dir)))
        && !path.split('/').any(|c| c == "..")
}

/// Is `value` a kubeconfig list whose files are all where administrators
/// keep them? (`$HOME` is the one expansion allowed: `$HOME/.kube/config`.)
pub fn kubeconfig_ok(value: &str, literal: bool) -> bool {
    let home_only = ["$HOME/", "${HOME}/", "~/"].iter().any(|home| {
        value
            .strip_prefix(home)
            .is_some_and(|rest| !rest.contains(['$', '`', '~']))
    });
    (literal || home_only) && value.split(':').all(is_admin_config)
}

/// Suffixes used by many programs for pager and editor overrides.
const DANGEROUS_SUFFIXES: &[&str] = &[
    "_PAGER",
    "_EDITOR",
    "_ASKPASS",
    "_OPTS_FILE",
    "_LOG_PATH",
    "_LOG_FILE",
    "_LOGFILE",
    "_CONFIG_FILE",
    "_HOST",
];

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
        for name in ["NS", "LANG", "TZ", "TERM", "COLUMNS", "APP_NAME"] {
            assert!(!is_dangerous(name), "{name}");
        }
    }
}
