//! The testkit's scripted turns, rendered in each wire format, through the
//! real providers: what the CLI, server and browser tests script is what
//! the providers read. Text, tool calls, usage, a stream cut off, scripts
//! chosen by the last user message (a tool result in between), and what
//! the server records of each request.

use serde_json::json;
use warden_llm::{
    Message, ProposedToolCall, Provider, ProviderError, ProviderKind, ToolOffer, connect,
};
use warden_testkit::model::{FakeModel, Turn, Wire};

use crate::support::{complete, config, sample_tools, user};

const WIRES: [(Wire, ProviderKind); 3] = [
    (Wire::OpenAi, ProviderKind::OpenAi),
    (Wire::Anthropic, ProviderKind::Anthropic),
    (Wire::Gemini, ProviderKind::Gemini),
];

fn provider(model: &FakeModel, kind: ProviderKind) -> Box<dyn Provider + Send> {
    connect(&config(kind, model.base_url())).unwrap()
}

fn read_args() -> serde_json::Value {
    json!({"action": "exec", "target": "web1", "command": "uptime"})
}

#[tokio::test]
async fn text_calls_and_usage_arrive_in_every_wire_format() {
    for (wire, kind) in WIRES {
        let model = FakeModel::start(wire);
        model.queue(
            Turn::words("The load is fine.")
                .and_call("read", read_args())
                .usage(812, 31),
        );
        let outcome = complete(
            &mut *provider(&model, kind),
            &user("why is the load high?"),
            &sample_tools(),
            ToolOffer::Tools,
            None,
        )
        .await;
        let reply = outcome.reply();
        assert_eq!(reply.text.as_deref(), Some("The load is fine."), "{wire:?}");
        assert_eq!(outcome.texts.len(), 4, "streamed word by word: {wire:?}");
        assert_eq!(reply.tool_calls.len(), 1, "{wire:?}");
        assert_eq!(reply.tool_calls[0].name, "read");
        assert_eq!(reply.tool_calls[0].arguments, read_args());
        let usage = reply.usage.unwrap();
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (812, 31),
            "{wire:?}"
        );

        let requests = model.requests();
        assert_eq!(model.request_count(), 1);
        let asked = &requests[0];
        assert_eq!(asked.method, "POST");
        assert_eq!(asked.model().as_deref(), Some("test-model"), "{wire:?}");
        assert_eq!(asked.last_user_text(), "why is the load high?", "{wire:?}");
        assert_eq!(asked.answers_since_user(), 0);
        match wire {
            Wire::OpenAi => {
                assert_eq!(asked.path(), "/v1/chat/completions");
                assert!(asked.header("authorization").is_some());
            }
            Wire::Anthropic => {
                assert_eq!(asked.path(), "/v1/messages");
                assert!(asked.max_tokens().is_some_and(|n| n > 0));
            }
            Wire::Gemini => {
                assert_eq!(
                    asked.path(),
                    "/v1beta/models/test-model:streamGenerateContent"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_turn_cut_off_is_truncated_in_every_wire_format() {
    for (wire, kind) in WIRES {
        let model = FakeModel::start(wire);
        model.set_fallback(Turn::text("The disk is 40").cut_off());
        let outcome = complete(
            &mut *provider(&model, kind),
            &user("why is the disk slow?"),
            &[],
            ToolOffer::Tools,
            None,
        )
        .await;
        assert!(
            matches!(outcome.error(), ProviderError::Truncated { .. }),
            "{wire:?}: {:?}",
            outcome.error()
        );
    }
}

#[tokio::test]
async fn scripts_follow_the_last_user_message_past_tool_results() {
    for (wire, kind) in WIRES {
        let model = FakeModel::start(wire);
        model.script(
            "disk",
            vec![
                Turn::call("read", read_args()),
                Turn::text("The disk is fine."),
            ],
        );
        model.script("load", vec![Turn::text("The load is fine.")]);
        let mut provider = provider(&model, kind);
        let first = complete(
            &mut *provider,
            &user("check the disk"),
            &sample_tools(),
            ToolOffer::Tools,
            None,
        )
        .await;
        let call = first.reply().tool_calls[0].clone();
        assert_eq!(call.name, "read", "{wire:?}");
        // The model's call and its result, then the model is asked again.
        let mut conversation = user("check the disk");
        conversation.push(Message::Assistant {
            text: None,
            tool_calls: vec![ProposedToolCall::new(
                call.id.clone(),
                "read",
                call.arguments,
            )],
        });
        conversation.push(Message::Tool {
            call_id: call.id,
            name: "read".into(),
            content: r#"{"ok":true,"data":{"stdout":"/dev/sda1 40%"}}"#.into(),
        });
        let second = complete(
            &mut *provider,
            &conversation,
            &sample_tools(),
            ToolOffer::Tools,
            None,
        )
        .await;
        assert_eq!(
            second.reply().text.as_deref(),
            Some("The disk is fine."),
            "{wire:?}"
        );
        let other = complete(
            &mut *provider,
            &user("and the load?"),
            &[],
            ToolOffer::Tools,
            None,
        )
        .await;
        assert_eq!(other.reply().text.as_deref(), Some("The load is fine."));
        let unscripted = complete(
            &mut *provider,
            &user("anything else?"),
            &[],
            ToolOffer::Tools,
            None,
        )
        .await;
        assert_eq!(
            unscripted.reply().text.as_deref(),
            Some("I have no script for that.")
        );
        let requests = model.requests();
        assert_eq!(requests[1].last_user_text(), "check the disk", "{wire:?}");
        assert_eq!(requests[1].answers_since_user(), 1, "{wire:?}");
    }
}
