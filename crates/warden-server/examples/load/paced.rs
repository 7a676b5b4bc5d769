//! A fake model that streams `tokens` tokens, one every `pace`, each the
//! wall-clock microsecond it was sent.

use std::time::Duration;

use warden_llm::{BoxFuture, Delta, ModelReply, ModelRequest, Provider, ProviderError, Usage};

pub struct PacedModel {
    pub pace: Duration,
    pub tokens: u64,
}

impl Provider for PacedModel {
    fn complete<'a>(
        &'a mut self,
        _request: &'a ModelRequest<'a>,
        on_delta: &'a mut (dyn FnMut(Delta<'_>) + Send),
    ) -> BoxFuture<'a, Result<ModelReply, ProviderError>> {
        Box::pin(async move {
            let mut text = String::new();
            for _ in 0..self.tokens {
                tokio::time::sleep(self.pace).await;
                let token = format!("t{} ", crate::now_us());
                on_delta(Delta::Text(&token));
                text.push_str(&token);
            }
            Ok(ModelReply {
                text: Some(text),
                tool_calls: Vec::new(),
                usage: Some(Usage {
                    input_tokens: 500,
                    output_tokens: self.tokens,
                }),
            })
        })
    }

    fn identity(&self) -> (&str, &str) {
        ("fake", "paced")
    }
}
