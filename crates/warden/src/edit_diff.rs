//! The unified diff a file edit's approval card shows on a terminal: the
//! file as it was when approval was asked for (kept with the approval)
//! against what the edit makes of it, so the approver sees what is lost
//! (`-`) as well as what is added (`+`). The web UI draws the same diff
//! (`ui/js/approvals.js`).

use serde_json::Value;
use warden_protocol::FileBefore;

/// Lines of context around each change.
const CONTEXT: usize = 3;
/// Above this many cells the line matching is skipped: every old line is
/// shown removed and every new one added.
const MAX_CELLS: usize = 4_000_000;

/// The diff of a file edit, as lines to print (`---`/`+++`, `@@`, ` `,
/// `-`, `+`); `None` for other calls.
pub fn file_edit_diff(
    tool: &str,
    arguments: &Value,
    before: Option<&FileBefore>,
) -> Option<Vec<String>> {
    if tool != "file_edit" {
        return None;
    }
    let path = arguments["path"].as_str().unwrap_or("(file)");
    let text = |key: &str| arguments[key].as_str().unwrap_or_default().to_string();
    let mut out = vec![format!("--- {path}"), format!("+++ {path}")];
    let known = before.and_then(|b| b.content.as_deref());
    if let Some(why) = before.and_then(|b| b.unreadable.as_deref()) {
        out.push(format!("(the current file could not be read: {why})"));
    }
    if before.is_some_and(|b| b.truncated) {
        out.push(
            "(the current file is longer than what was read: the diff covers its start)".into(),
        );
    }
    let (old, new) = match (arguments["action"].as_str(), known) {
        (Some("write"), Some(old)) => (old.to_string(), text("content")),
        (Some("write"), None) => (String::new(), text("content")),
        (Some("append"), old) => {
            let old = old.unwrap_or_default().to_string();
            let mut new = old.clone();
            if !new.is_empty() && !new.ends_with('\n') {
                new.push('\n');
            }
            new.push_str(&text("content"));
            (old, new)
        }
        (Some("replace"), Some(old)) if old.contains(&text("old")) => {
            let new = old.replace(&text("old"), &text("new"));
            (old.to_string(), new)
        }
        (Some("replace"), found) => {
            if found.is_some() {
                out.push(
                    "(the text to replace is not in the file as read: the edit would fail)".into(),
                );
            }
            (text("old"), text("new"))
        }
        _ => return None,
    };
    out.extend(unified(&lines(&old), &lines(&new)));
    Some(out)
}

fn lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Remove,
    Add,
}

/// The edit script from `old` to `new` (longest common subsequence).
fn script(old: &[&str], new: &[&str]) -> Vec<(Op, usize)> {
    let (n, m) = (old.len(), new.len());
    if n.saturating_mul(m) > MAX_CELLS {
        let mut ops: Vec<(Op, usize)> = (0..n).map(|i| (Op::Remove, i)).collect();
        ops.extend((0..m).map(|j| (Op::Add, j)));
        return ops;
    }
    // lcs[i][j]: the common length of old[i..] and new[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if old[i] == new[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            ops.push((Op::Keep, i));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[at(i, j + 1)] > lcs[at(i + 1, j)]) {
            // Removals first on a tie, as diff(1) prints them.
            ops.push((Op::Add, j));
            j += 1;
        } else {
            ops.push((Op::Remove, i));
            i += 1;
        }
    }
    ops
}

/// Hunks with `CONTEXT` lines around changes.
fn unified(old: &[&str], new: &[&str]) -> Vec<String> {
    let ops = script(old, new);
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _))| *op != Op::Keep)
        .map(|(k, _)| k)
        .collect();
    let Some(&first) = changed.first() else {
        return vec!["(no change: the file already reads so)".to_string()];
    };
    // Group changes whose context overlaps.
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    let (mut start, mut end) = (first.saturating_sub(CONTEXT), first + 1 + CONTEXT);
    for &k in &changed[1..] {
        if k.saturating_sub(CONTEXT) <= end {
            end = k + 1 + CONTEXT;
        } else {
            hunks.push((start, end.min(ops.len())));
            start = k.saturating_sub(CONTEXT);
            end = k + 1 + CONTEXT;
        }
    }
    hunks.push((start, end.min(ops.len())));
    let mut out = Vec::new();
    for (start, end) in hunks {
        // Line numbers (1-based) where the hunk starts in each file.
        let old_len = ops[start..end]
            .iter()
            .filter(|(op, _)| *op != Op::Add)
            .count();
        let new_len = ops[start..end]
            .iter()
            .filter(|(op, _)| *op != Op::Remove)
            .count();
        // An empty range starts at the line before it, as diff(1) writes.
        let old_start =
            ops[..start].iter().filter(|(op, _)| *op != Op::Add).count() + usize::from(old_len > 0);
        let new_start = ops[..start]
            .iter()
            .filter(|(op, _)| *op != Op::Remove)
            .count()
            + usize::from(new_len > 0);
        out.push(format!(
            "@@ -{old_start},{old_len} +{new_start},{new_len} @@"
        ));
        for &(op, index) in &ops[start..end] {
            out.push(match op {
                Op::Keep => format!(" {}", old[index]),
                Op::Remove => format!("-{}", old[index]),
                Op::Add => format!("+{}", new[index]),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn before(content: &str) -> FileBefore {
        FileBefore {
            content: Some(content.to_string()),
            truncated: false,
            unreadable: None,
        }
    }

    #[test]
    fn a_whole_file_write_shows_the_lines_it_loses() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let args = json!({"action": "write", "path": "/etc/app.conf", "content": "a\nb\nc\nD\ne\nf\ng\nh\n"});
        let diff = file_edit_diff("file_edit", &args, Some(&before(old))).unwrap();
        assert_eq!(
            diff,
            vec![
                "--- /etc/app.conf",
                "+++ /etc/app.conf",
                "@@ -1,7 +1,7 @@",
                " a",
                " b",
                " c",
                "-d",
                "+D",
                " e",
                " f",
                " g",
            ]
        );
        // Everything replaced by one line: every old line is shown lost.
        let args = json!({"action": "write", "path": "/etc/app.conf", "content": "x\n"});
        let diff = file_edit_diff("file_edit", &args, Some(&before("keep me\nand me\n"))).unwrap();
        assert!(diff.contains(&"-keep me".to_string()), "{diff:?}");
        assert!(diff.contains(&"-and me".to_string()), "{diff:?}");
        assert!(diff.contains(&"+x".to_string()), "{diff:?}");
    }

    #[test]
    fn replace_append_new_files_and_unreadable_ones() {
        let args = json!({"action": "replace", "path": "/f", "old": "port 80", "new": "port 8080"});
        let diff = file_edit_diff("file_edit", &args, Some(&before("listen\nport 80\n"))).unwrap();
        assert!(diff.contains(&"-port 80".to_string()) && diff.contains(&"+port 8080".to_string()));
        assert!(diff.contains(&" listen".to_string()), "{diff:?}");
        let args = json!({"action": "append", "path": "/f", "content": "new line"});
        let diff = file_edit_diff("file_edit", &args, Some(&before("old\n"))).unwrap();
        assert_eq!(diff[2..], ["@@ -1,1 +1,2 @@", " old", "+new line"]);
        let absent = FileBefore {
            content: None,
            truncated: false,
            unreadable: None,
        };
        let args = json!({"action": "write", "path": "/f", "content": "hello\n"});
        let diff = file_edit_diff("file_edit", &args, Some(&absent)).unwrap();
        assert_eq!(diff[2..], ["@@ -0,0 +1,1 @@", "+hello"]);
        let refused = FileBefore {
            content: None,
            truncated: false,
            unreadable: Some("protected (PROTECTED_PATH)".into()),
        };
        let diff = file_edit_diff("file_edit", &args, Some(&refused)).unwrap();
        assert!(diff[2].contains("could not be read"), "{diff:?}");
        assert_eq!(file_edit_diff("control", &args, None), None);
    }
}
