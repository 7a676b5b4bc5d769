//! Choosing the model. A configured model always wins and costs no network
//! call. Otherwise, on the provider's first call (never at `connect`, so an
//! unreachable provider cannot stop Warden from starting), the provider's
//! live list is read and the **first chat
//! model in the server's own order** is taken: no vendor model ids are baked
//! into Warden, and the server's order is the one stable choice (Ollama
//! lists the most recently pulled model first, Anthropic the newest).
//! Models whose names mark them as non-chat (embeddings, speech, images,
//! moderation, ...) are skipped. The choice is kept for the provider's
//! life; a failed lookup is tried again on the next call.

use serde_json::Value;

use crate::config::WireFormat;
use crate::http::Call;
use crate::provider::ProviderError;

/// What `identity()` reports before the model list was read.
pub const UNRESOLVED_MODEL: &str = "auto";

/// Name fragments of models that cannot hold a chat (lower case).
const NON_CHAT_MARKERS: &[&str] = &[
    "embed",
    "whisper",
    "tts",
    "audio",
    "transcribe",
    "speech",
    "dall-e",
    "image",
    "imagen",
    "moderation",
    "rerank",
    "realtime",
    "davinci",
    "babbage",
    "sora",
    "veo",
    "aqa",
];

/// Whether a model id names something that answers chat requests.
pub fn is_chat_model(id: &str) -> bool {
    let id = id.to_ascii_lowercase();
    !NON_CHAT_MARKERS.iter().any(|marker| id.contains(marker))
}

/// The model to use: the first chat model in `listed`.
pub fn choose_model(listed: &[String]) -> Option<&str> {
    listed
        .iter()
        .map(String::as_str)
        .find(|id| is_chat_model(id))
}

/// The URL a wire format's model list lives at.
pub fn models_url(format: WireFormat, base_url: &str) -> String {
    match format {
        WireFormat::OpenAiCompatible => format!("{base_url}/models"),
        WireFormat::Anthropic => format!("{base_url}/v1/models"),
        WireFormat::Gemini => format!("{base_url}/v1beta/models?pageSize=1000"),
    }
}

/// Model ids from a list response, in the server's order. Gemini entries
/// that cannot `generateContent` are left out here.
pub fn parse_model_list(format: WireFormat, body: &Value) -> Vec<String> {
    match format {
        WireFormat::OpenAiCompatible | WireFormat::Anthropic => body["data"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|m| m["id"].as_str().map(str::to_string))
            .collect(),
        WireFormat::Gemini => body["models"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|m| {
                m["supportedGenerationMethods"]
                    .as_array()
                    .is_some_and(|methods| methods.iter().any(|x| x == "generateContent"))
            })
            .filter_map(|m| m["name"].as_str())
            .map(|name| name.strip_prefix("models/").unwrap_or(name).to_string())
            .collect(),
    }
}

/// The model a provider uses: configured, or looked up once.
#[derive(Debug, Clone)]
pub struct ModelChoice {
    format: WireFormat,
    list_url: String,
    name: Option<String>,
}

impl ModelChoice {
    pub fn new(format: WireFormat, configured: Option<&str>, base_url: &str) -> Self {
        let name = configured.map(|model| {
            let model = model.trim();
            match format {
                // Gemini lists models as `models/NAME`; URLs want `NAME`.
                WireFormat::Gemini => model.strip_prefix("models/").unwrap_or(model),
                WireFormat::OpenAiCompatible | WireFormat::Anthropic => model,
            }
            .to_string()
        });
        ModelChoice {
            format,
            list_url: models_url(format, base_url),
            name,
        }
    }

    /// The model, or [`UNRESOLVED_MODEL`] until the first call chose one.
    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or(UNRESOLVED_MODEL)
    }

    /// The model, reading the server's list on first use.
    pub async fn resolve(
        &mut self,
        call: &mut Call<'_>,
        headers: &[(&'static str, String)],
    ) -> Result<String, ProviderError> {
        if let Some(name) = &self.name {
            return Ok(name.clone());
        }
        let body = call.get_json(&self.list_url, headers).await?;
        let listed = parse_model_list(self.format, &body);
        let chosen = choose_model(&listed).map(str::to_string).ok_or_else(|| {
            let http = call.http();
            let why = why_no_model(http.provider(), &self.list_url, &listed);
            ProviderError::NoModel(http.redact(&why))
        })?;
        self.name = Some(chosen.clone());
        Ok(chosen)
    }
}

/// Why no model was chosen, naming the provider, the URL and the list.
fn why_no_model(provider: &str, url: &str, listed: &[String]) -> String {
    const SHOWN: usize = 20;
    let url = url.split('?').next().unwrap_or(url);
    if listed.is_empty() {
        return format!(
            "{provider}: none configured and {url} listed no models; set a model explicitly"
        );
    }
    let mut names = listed
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if listed.len() > SHOWN {
        names.push_str(&format!(", … ({} in all)", listed.len()));
    }
    format!(
        "{provider}: none configured and {url} listed only non-chat models ({names}); set a model explicitly"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn skips_non_chat_models_and_keeps_server_order() {
        let listed = ids(&[
            "text-embedding-3-small",
            "whisper-1",
            "tts-1-hd",
            "dall-e-3",
            "omni-moderation-latest",
            "qwen3:8b",
            "llama3.2:3b",
        ]);
        assert_eq!(choose_model(&listed), Some("qwen3:8b"));
        assert_eq!(choose_model(&ids(&["nomic-embed-text:latest"])), None);
    }

    #[test]
    fn gemini_list_needs_generate_content_and_loses_prefix() {
        let body = json!({"models": [
            {"name": "models/embedding-001", "supportedGenerationMethods": ["embedContent"]},
            {"name": "models/gemini-x-flash", "supportedGenerationMethods": ["generateContent", "countTokens"]},
        ]});
        assert_eq!(
            parse_model_list(WireFormat::Gemini, &body),
            ids(&["gemini-x-flash"])
        );
    }

    #[test]
    fn configured_names_need_no_lookup_and_gemini_loses_its_prefix() {
        let choice = ModelChoice::new(WireFormat::Gemini, Some(" models/g-1 "), "http://h");
        assert_eq!(choice.name(), "g-1");
        let lazy = ModelChoice::new(WireFormat::Anthropic, None, "http://h");
        assert_eq!(lazy.name(), UNRESOLVED_MODEL);
        assert_eq!(lazy.list_url, "http://h/v1/models");
    }

    #[test]
    fn no_model_names_url_and_list() {
        let error = why_no_model("ollama", "http://h/v1/models", &ids(&["whisper-1"]));
        assert!(
            error.contains("ollama")
                && error.contains("http://h/v1/models")
                && error.contains("whisper-1"),
            "{error}"
        );
    }
}
