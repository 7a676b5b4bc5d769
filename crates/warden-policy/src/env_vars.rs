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
];

/// Variables that name configuration files which can run programs (a
/// kubeconfig's `exec` plugins): only files where administrators keep them
/// may be named, never standard input, a device, a temporary file or a
/// file of unknown origin.
const CONFIG_FILES: &[&str] = &["KUBECONFIG"];

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

/// Would setting `name` to `value` (as written, `literal` when it has no
/// expansion) change which code runs or which configuration is read?
pub fn is_dangerous_assignment(name: &str, value: &str, literal: bool) -> bool {
    if is_dangerous(name) {
        return true;
    }
    if !CONFIG_FILES.contains(&name) {
        return false;
    }
    // The home directory is the one expansion allowed (`$HOME/.kube/config`).
    let home_only = ["$HOME/", "${HOME}/", "~/"].iter().any(|home| {
        value
            .strip_prefix(home)
            .is_some_and(|rest| !rest.contains(['$', '`', '~']))
    });
    if !literal && !home_only {
        return true;
    }
    !value.split(':').all(is_admin_config)
}

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
        for name in ["NS", "LANG", "TZ", "TERM", "COLUMNS", "APP_NAME"] {
            assert!(!is_dangerous(name), "{name}");
        }
    }
}
