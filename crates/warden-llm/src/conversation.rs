//! Conversation shaping shared by the providers whose APIs have no
//! mid-conversation system role (Anthropic, Gemini).

use serde_json::Value;

use crate::types::Message;

/// Prefix of Warden's own notices when they must travel as user text.
pub const WARDEN_PREFIX: &str = "[Warden] ";

/// Stands in for the user when a conversation would start with the model.
pub const CONTINUATION_NOTE: &str = "[Warden] (conversation continues)";

/// The leading system messages joined into one system prompt, and the
/// rest of the conversation. Later system messages (gate notices, nudges)
/// stay in the rest; providers send them as user text with
/// [`WARDEN_PREFIX`].
pub fn split_leading_system(messages: &[Message]) -> (Option<String>, &[Message]) {
    let leading = messages
        .iter()
        .take_while(|m| matches!(m, Message::System { .. }))
        .count();
    let texts: Vec<&str> = messages[..leading]
        .iter()
        .filter_map(|m| match m {
            Message::System { text } if !text.trim().is_empty() => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let system = (!texts.is_empty()).then(|| texts.join("\n\n"));
    (system, &messages[leading..])
}

/// Who speaks a wire turn: the user side (user text, Warden's notices,
/// tool results) or the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    User,
    Model,
}

/// Consecutive same-side pieces merged into one turn (the APIs want turns
/// to alternate), empty pieces dropped, and a user turn first (`opening`
/// stands in when the history starts with the model).
pub fn merge_turns(
    pieces: impl IntoIterator<Item = (Side, Vec<Value>)>,
    opening: Vec<Value>,
) -> Vec<(Side, Vec<Value>)> {
    let mut turns: Vec<(Side, Vec<Value>)> = Vec::new();
    for (side, parts) in pieces {
        if parts.is_empty() {
            continue;
        }
        match turns.last_mut() {
            Some((last, merged)) if *last == side => merged.extend(parts),
            _ => turns.push((side, parts)),
        }
    }
    if turns.first().is_none_or(|(side, _)| *side != Side::User) {
        turns.insert(0, (Side::User, opening));
    }
    turns
}

/// A later system message as user text.
pub fn notice_as_user_text(text: &str) -> String {
    format!("{WARDEN_PREFIX}{text}")
}

/// Whether the conversation already holds tool calls or results; APIs
/// that validate them need the tools declared even on a text-only turn.
pub fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|m| match m {
        Message::Assistant { tool_calls, .. } => !tool_calls.is_empty(),
        Message::Tool { .. } => true,
        Message::System { .. } | Message::User { .. } => false,
    })
}

/// The call with `call_id` among the assistant messages, for providers
/// that need details of the call when sending its result.
pub fn find_call<'a>(
    messages: &'a [Message],
    call_id: &str,
) -> Option<&'a crate::types::ProposedToolCall> {
    messages.iter().rev().find_map(|m| match m {
        Message::Assistant { tool_calls, .. } => tool_calls.iter().find(|c| c.id == call_id),
        Message::System { .. } | Message::User { .. } | Message::Tool { .. } => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_system_messages_are_joined() {
        let messages = vec![
            Message::system("You are Warden."),
            Message::system("Hosts: pve1."),
            Message::user("hi"),
            Message::system("Wrap up."),
        ];
        let (system, rest) = split_leading_system(&messages);
        assert_eq!(system.as_deref(), Some("You are Warden.\n\nHosts: pve1."));
        assert_eq!(rest.len(), 2);
        let (none, all) = split_leading_system(&messages[2..]);
        assert!(none.is_none());
        assert_eq!(all.len(), 2);
    }
}
