use std::borrow::Cow;

use super::git;
use crate::commands::testing::{is_interactive, is_read, is_write, rule_verdict};
use crate::invocation::{Arg, ArgShape, Invocation};
use crate::verdict::{InteractiveCategory, Risk, Verdict};

#[test]
fn reads() {
    for line in [
        "git",
        "git status",
        "git status -sb",
        "git status --porcelain=v2 --ignored",
        "git log -p -n 1 -- config.yaml",
        "git log -p -1",
        "git log --oneline --graph --all -20",
        "git log --since=2.weeks --author=alice --format=%H%x09%s",
        "git log --output-indicator-new=> -p",
        "git log --no-ext-diff --no-textconv -p",
        "git log -S needle --pickaxe-all",
        "git log --exclude=refs/tmp/* --all",
        "git diff -p",
        "git diff --stat HEAD~3",
        "git diff --cached -- src/main.rs",
        "git diff --no-index a.txt b.txt",
        "git diff --text a b",
        "git show -p HEAD",
        "git show HEAD:README.md",
        "git show --stat v1.0",
        "git blame README.md",
        "git blame -L 10,20 -- src/lib.rs",
        "git annotate file",
        "git shortlog -sn",
        "git describe --tags --always --dirty",
        "git rev-parse --abbrev-ref HEAD",
        "git rev-parse --show-toplevel",
        "git rev-list --count HEAD",
        "git ls-files -m",
        "git ls-tree -r HEAD --name-only",
        "git ls-remote origin",
        "git ls-remote --heads https://example.com/repo.git",
        "git cat-file -p HEAD",
        "git cat-file -t abc123",
        "git count-objects -vH",
        "git fsck --full",
        "git verify-commit HEAD",
        "git verify-tag v1.0",
        "git check-ignore -v target/",
        "git check-attr -a file",
        "git check-ref-format refs/heads/x",
        "git merge-base main feature",
        "git name-rev HEAD",
        "git for-each-ref --sort=-committerdate refs/heads/",
        "git show-ref --tags",
        "git show-branch",
        "git whatchanged -n 5",
        "git cherry -v main",
        "git range-diff main..a main..b",
        "git var GIT_AUTHOR_IDENT",
        "git version",
        "git --version",
        "git -v",
        "git --exec-path",
        "git --html-path",
        "git help -a",
        "git help --guides",
        "git help",
        "git grep -n TODO",
        "git grep -e foo -- '*.rs'",
        "git reflog",
        "git reflog -n 10",
        "git reflog show main",
        "git archive HEAD",
        "git archive --format=tar --remote=origin HEAD",
        "git format-patch --stdout -1",
        "git push -h",
        "git hash-object file",
        "git apply --check fix.patch",
        "git apply --stat fix.patch",
        "git symbolic-ref HEAD",
        "git symbolic-ref --short HEAD",
        "git add -n .",
        "git add --dry-run -A",
        "git rm -n -r dir",
        "git clean -n",
        "git clean -nd -e *.log",
        "git mv -n a b",
        "git rerere status",
        "git sparse-checkout list",
        "git commit-graph verify",
        "git bundle verify repo.bundle",
        "git -P log",
        "git --no-pager log -1",
        "git --no-pager diff",
        "git --no-optional-locks status",
        "git --literal-pathspecs ls-files",
        "git --bare rev-parse HEAD",
        "git -C /etc log -1",
        "git -C /srv/app --no-pager status",
        "git -C a -C b log",
        "git --list-cmds=main",
    ] {
        assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn branch_tag_remote_stash_config() {
    for line in [
        "git branch",
        "git branch -a",
        "git branch -avv",
        "git branch -r",
        "git branch --show-current",
        "git branch --list feat*",
        "git branch -l feat*",
        "git branch --contains abc123",
        "git branch --merged main",
        "git branch --no-merged",
        "git branch --sort=-committerdate",
        "git branch --sort -committerdate",
        "git branch --format %(refname:short)",
        "git branch -a --points-at HEAD",
        "git branch -r foo",
        "git tag",
        "git tag -l",
        "git tag -l v1.*",
        "git tag --list",
        "git tag -n",
        "git tag -n5",
        "git tag --contains HEAD",
        "git tag --points-at HEAD",
        "git tag --sort=-v:refname",
        "git tag -v v1.0",
        "git tag --verify v1.0",
        "git remote",
        "git remote -v",
        "git remote show origin",
        "git remote -v show origin",
        "git remote get-url origin",
        "git stash list",
        "git stash show",
        "git stash show -p stash@{1}",
        "git config --get user.name",
        "git config --get-all remote.origin.fetch",
        "git config --get-regexp ^alias",
        "git config --list",
        "git config -l",
        "git config --list --show-origin",
        "git config --global --list --show-scope",
        "git config -f .gitmodules --get-regexp path",
        "git config user.name",
        "git config get user.name",
        "git config list",
        "git config --type=bool core.bare",
        "git worktree list",
        "git submodule",
        "git submodule status",
        "git submodule summary",
        "git notes",
        "git notes list",
        "git notes show HEAD",
        "git notes --ref review show",
        "git bisect log",
        "git bisect view",
        "git lfs ls-files",
        "git lfs status",
        "git lfs env",
    ] {
        assert!(is_read(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn writes() {
    for line in [
        "git stash",
        "git stash push -m x",
        "git stash pop",
        "git stash drop",
        "git stash clear",
        "git stash apply",
        "git merge feature",
        "git tag v1.0",
        "git tag -a v1.0 -m release",
        "git tag -d v1.0",
        "git tag -f v1.0",
        "git branch -d feature",
        "git branch -D feature",
        "git branch new-branch",
        "git branch -m old new",
        "git branch -M new",
        "git branch -c a b",
        "git branch --set-upstream-to=origin/main",
        "git branch -u origin/main",
        "git branch --unset-upstream",
        "git branch --edit-description",
        "git branch -f main HEAD~1",
        "git branch -vd feature",
        "git branch --delete feature",
        "git checkout status",
        "git checkout main",
        "git checkout -b feature",
        "git checkout -- file",
        "git checkout .",
        "git checkout -f",
        "git switch main",
        "git switch -c new",
        "git restore file",
        "git restore --staged file",
        "git reset --hard HEAD~1",
        "git reset HEAD file",
        "git revert HEAD",
        "git cherry-pick abc",
        "git rebase main",
        "git rebase -i HEAD~3",
        "git add .",
        "git add -p",
        "git add -n -p",
        "git add -e",
        "git commit -m msg",
        "git commit -m --help",
        "git push",
        "git push --force",
        "git push origin :branch",
        "git push origin +main",
        "git pull",
        "git fetch",
        "git fetch --all --prune",
        "git rm file",
        "git rm --cached file",
        "git rm -rf dir",
        "git mv a b",
        "git clean -fdx",
        "git clean -f",
        "git clean -n -i",
        "git init",
        "git clone https://example.com/r.git",
        "git gc --aggressive",
        "git prune",
        "git repack -ad",
        "git am patch.mbox",
        "git apply fix.patch",
        "git apply --stat --apply fix.patch",
        "git notes add -m x",
        "git notes remove HEAD",
        "git replace a b",
        "git update-ref refs/heads/x HEAD",
        "git update-ref -d refs/heads/x",
        "git update-index --assume-unchanged f",
        "git symbolic-ref HEAD refs/heads/main",
        "git symbolic-ref -d HEAD",
        "git filter-branch --tree-filter x",
        "git lfs pull",
        "git lfs install",
        "git remote add origin url",
        "git remote remove origin",
        "git remote rm origin",
        "git remote rename a b",
        "git remote set-url origin url",
        "git remote prune origin",
        "git remote update",
        "git submodule update --init",
        "git submodule add url",
        "git submodule init",
        "git submodule sync",
        "git submodule deinit -f x",
        "git submodule foreach git pull",
        "git worktree add ../x",
        "git worktree remove ../x",
        "git worktree prune",
        "git worktree",
        "git sparse-checkout set dir",
        "git maintenance run",
        "git credential fill",
        "git daemon",
        "git instaweb",
        "git web--browse url",
        "git difftool",
        "git frobnicate",
        "git co main",
        "git config user.name alice",
        "git config --global user.name alice",
        "git config --unset user.name",
        "git config --add remote.origin.fetch x",
        "git config set user.name alice",
        "git config unset user.name",
        "git config --remove-section alias",
        "git config --bogus",
        "git reflog expire --all",
        "git reflog delete HEAD@{1}",
        "git bisect start",
        "git bisect good",
        "git bisect reset",
        "git bisect run make test",
        "git format-patch -1",
        "git format-patch -o out -1",
        "git format-patch --stdout -o out -1",
        "git archive -o out.tar HEAD",
        "git archive --output=out.tar HEAD",
        "git archive --output out.tar HEAD",
        "git archive --out=out.tar HEAD",
        "git archive --exec=/tmp/x --remote=r HEAD",
        "git fsck --lost-found",
        "git hash-object -w file",
        "git interpret-trailers --in-place msg",
        "git rerere",
        "git rerere forget path",
        "git commit-graph write",
        "git bundle create x.bundle HEAD",
        "git hook run pre-commit",
        "git for-each-repo --config=maintenance.repo gc",
    ] {
        assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
    }
}

#[test]
fn dangerous_options_of_reads() {
    for line in [
        "git log --output=/tmp/git-log-out-test -n 1",
        "git diff --output /tmp/git-diff-out-test",
        "git show --output=/tmp/git-show-out-test HEAD",
        "git log --outp=/tmp/x",
        "git diff --ext-diff",
        "git log -p --ext-diff",
        "git diff --textconv",
        "git log --textc -p",
        "git cat-file --filters HEAD:x",
        "git cat-file --textconv HEAD:x",
        "git blame --textconv f",
        "git ls-remote --upload-pack=/tmp/evil origin",
        "git ls-remote --upload-pack /tmp/evil origin",
        "git ls-remote --exec=/tmp/evil origin",
        "git ls-remote ext::sh",
        "git archive --remote=ext::sh HEAD",
        "git archive --remote=fd::3 HEAD",
        "git archive --remote ext::sh HEAD",
        "git stash list --output=x",
        "git stash show --ext-diff",
        "git reflog --output=x",
        "git shortlog --output=x",
        "git range-diff --output=x a b",
    ] {
        assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
    }
    for line in [
        "git grep -O foo",
        "git grep -Ovim foo",
        "git grep --open-files-in-pager foo",
        "git grep --open-files-in-pager=vim foo",
    ] {
        assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
        assert!(!is_read(line), "{line}");
    }
}

#[test]
fn global_options() {
    for line in [
        "git -C. status",
        "git -C",
        "git -c core.pager=cat log -n 1",
        "git -ccore.pager=cat status",
        "git -c alias.x=!sh x",
        "git --config-env core.pager=PAGER show HEAD",
        "git --config-env=core.pager=PAGER show HEAD",
        "git --git-dir .evil-git diff HEAD~1..HEAD",
        "git --git-dir=.evil-git diff HEAD~1..HEAD",
        "git --work-tree . status",
        "git --work-tree=. status",
        "git --exec-path .git/helpers show HEAD",
        "git --exec-path=.git/helpers show HEAD",
        "git --namespace attacker show HEAD",
        "git --namespace=attacker show HEAD",
        "git --super-prefix attacker/ show HEAD",
        "git --super-prefix=attacker/ show HEAD",
        "git --frob status",
        "git -C /srv push",
    ] {
        assert!(is_write(line), "{line}: {:?}", rule_verdict(line));
    }
    for line in [
        "git --paginate log -1",
        "git -p log -1",
        "git -p status",
        "git help log",
        "git help -m log",
        "git --help log",
        // A manual page in a pager or a browser; `git log -h` prints.
        "git log --help",
        "git commit --help",
    ] {
        assert!(is_interactive(line), "{line}: {:?}", rule_verdict(line));
    }
    // A pager does not hide a write.
    assert!(is_write("git -p push"));
}

#[test]
fn risks() {
    let risk = |line| match rule_verdict(line) {
        Verdict::Write(r, _) => Some(r),
        _ => None,
    };
    assert_eq!(risk("git tag v1.0"), Some(Risk::LowWrite));
    assert_eq!(risk("git branch new"), Some(Risk::LowWrite));
    assert_eq!(risk("git fetch"), Some(Risk::LowWrite));
    assert_eq!(risk("git reset --hard"), Some(Risk::HighWrite));
    assert_eq!(risk("git reset HEAD~1"), Some(Risk::MediumWrite));
    assert_eq!(risk("git checkout main"), Some(Risk::MediumWrite));
    assert_eq!(risk("git checkout -- ."), Some(Risk::HighWrite));
    assert_eq!(risk("git clean -fd"), Some(Risk::HighWrite));
    assert_eq!(risk("git restore f"), Some(Risk::HighWrite));
    assert_eq!(risk("git filter-branch x"), Some(Risk::HighWrite));
    assert_eq!(risk("git push -f"), Some(Risk::HighWrite));
    assert_eq!(risk("git push"), Some(Risk::MediumWrite));
    assert_eq!(risk("git stash drop"), Some(Risk::HighWrite));
    assert_eq!(risk("git stash"), Some(Risk::MediumWrite));
    assert!(matches!(
        rule_verdict("git -p log"),
        Verdict::Interactive(iv) if iv.category == InteractiveCategory::Pager
    ));
}

fn run(words: &[(&'static str, &'static str, ArgShape)]) -> Verdict {
    let args: Vec<Arg<'static>> = words
        .iter()
        .map(|&(text, raw, shape)| Arg {
            text: Cow::Borrowed(text),
            raw,
            shape,
        })
        .collect();
    git(&Invocation::new("git", &args))
}

#[test]
fn variable_arguments() {
    use ArgShape::{Dynamic, Glob, Literal};
    let lit = |s: &'static str| (s, s, Literal);
    // An expansion in option position could be `--output=…`.
    assert!(matches!(
        run(&[lit("log"), ("$OPT", "$OPT", Dynamic)]),
        Verdict::Unknown(_)
    ));
    assert!(matches!(
        run(&[lit("log"), ("origin/$B", "origin/$B", Dynamic)]),
        Verdict::Unknown(_)
    ));
    assert!(matches!(
        run(&[lit("diff"), ("*", "*", Glob)]),
        Verdict::Unknown(_)
    ));
    assert!(matches!(
        run(&[("$SUB", "$SUB", Dynamic)]),
        Verdict::Unknown(_)
    ));
    assert!(matches!(
        run(&[("-c$X", "-c$X", Dynamic), lit("log")]),
        Verdict::Unknown(_)
    ));
    // Double-quoted with fixed text first, after `--`, or a glob with a
    // fixed start: cannot become an option.
    assert_eq!(
        run(&[lit("log"), ("origin/$B", "\"origin/$B\"", Dynamic)]),
        Verdict::Read
    );
    assert_eq!(
        run(&[lit("log"), lit("--"), ("$F", "\"$F\"", Dynamic)]),
        Verdict::Read
    );
    assert_eq!(
        run(&[lit("ls-files"), ("src/*.rs", "src/*.rs", Glob)]),
        Verdict::Read
    );
}
