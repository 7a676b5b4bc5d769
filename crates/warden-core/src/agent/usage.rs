//! Token and cost accounting per provider and model, with an optional
//! budget that stops the loop with a clear message when spent.

use std::collections::BTreeMap;

use super::provider::Usage;

/// Prices per million tokens (input, output), by (provider, model), and by
/// model alone for a price that holds whichever provider serves it (the
/// configuration's `[pricing."MODEL"]`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Prices {
    table: BTreeMap<(String, String), (f64, f64)>,
    any_provider: BTreeMap<String, (f64, f64)>,
}

impl Prices {
    pub fn set(
        &mut self,
        provider: &str,
        model: &str,
        input_per_million: f64,
        output_per_million: f64,
    ) {
        self.table.insert(
            (provider.to_string(), model.to_string()),
            (input_per_million, output_per_million),
        );
    }

    /// `model`'s price whichever provider serves it (OpenAI, Ollama,
    /// Anthropic, Gemini or one added later); a price for a provider and
    /// model pair wins over it.
    pub fn set_for_any_provider(
        &mut self,
        model: &str,
        input_per_million: f64,
        output_per_million: f64,
    ) {
        self.any_provider
            .insert(model.to_string(), (input_per_million, output_per_million));
    }

    /// The cost of `usage`, or `None` when the model has no known price.
    pub fn cost(&self, provider: &str, model: &str, usage: Usage) -> Option<f64> {
        let (input, output) = self
            .table
            .get(&(provider.to_string(), model.to_string()))
            .or_else(|| self.any_provider.get(model))?;
        Some(
            (usage.input_tokens as f64 * input + usage.output_tokens as f64 * output) / 1_000_000.0,
        )
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: Option<f64>,
    pub calls: u64,
}

/// What a conversation has spent.
#[derive(Debug, Clone, Default)]
pub struct UsageLedger {
    pub by_model: BTreeMap<(String, String), Totals>,
    pub prices: Prices,
}

impl UsageLedger {
    pub fn record(&mut self, provider: &str, model: &str, usage: Usage) {
        let cost = self.prices.cost(provider, model, usage);
        let totals = self
            .by_model
            .entry((provider.to_string(), model.to_string()))
            .or_default();
        totals.input_tokens += usage.input_tokens;
        totals.output_tokens += usage.output_tokens;
        totals.calls += 1;
        totals.cost_usd = match (totals.cost_usd, cost) {
            (Some(a), Some(b)) => Some(a + b),
            (None, Some(b)) if totals.calls == 1 => Some(b),
            (known, _) => known,
        };
    }

    pub fn total_tokens(&self) -> u64 {
        self.by_model
            .values()
            .map(|t| t.input_tokens + t.output_tokens)
            .sum()
    }
}

/// Limits on what a conversation may spend.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Budget {
    pub max_tokens: Option<u64>,
}

impl Budget {
    /// The message the user sees when the budget is spent, if it is.
    pub fn exceeded(&self, ledger: &UsageLedger) -> Option<String> {
        let max = self.max_tokens?;
        let used = ledger.total_tokens();
        (used >= max).then(|| {
            format!("Stopped: this conversation used {used} tokens, its budget is {max}. Raise the budget to continue.")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_price_holds_for_every_provider_unless_a_pair_says_otherwise() {
        let mut prices = Prices::default();
        prices.set_for_any_provider("qwen", 1.0, 2.0);
        prices.set("openrouter", "qwen", 10.0, 20.0);
        let usage = Usage {
            input_tokens: 1_000_000,
            output_tokens: 1_000_000,
        };
        let table = [
            ("ollama", "qwen", Some(3.0)),
            ("openai", "qwen", Some(3.0)),
            ("anthropic", "qwen", Some(3.0)),
            ("openrouter", "qwen", Some(30.0)),
            ("ollama", "llama", None),
        ];
        for (provider, model, cost) in table {
            assert_eq!(
                prices.cost(provider, model, usage),
                cost,
                "{provider}/{model}"
            );
        }
    }

    #[test]
    fn ledger_totals_and_costs() {
        let mut ledger = UsageLedger::default();
        ledger.prices.set("openai", "m", 1.0, 2.0);
        ledger.record(
            "openai",
            "m",
            Usage {
                input_tokens: 1_000_000,
                output_tokens: 500_000,
            },
        );
        ledger.record(
            "openai",
            "m",
            Usage {
                input_tokens: 0,
                output_tokens: 500_000,
            },
        );
        ledger.record(
            "ollama",
            "llama",
            Usage {
                input_tokens: 10,
                output_tokens: 5,
            },
        );
        let openai = ledger.by_model[&("openai".to_string(), "m".to_string())];
        assert_eq!(openai.cost_usd, Some(3.0));
        assert_eq!(openai.calls, 2);
        assert_eq!(
            ledger.by_model[&("ollama".to_string(), "llama".to_string())].cost_usd,
            None
        );
        assert_eq!(ledger.total_tokens(), 2_000_015);
        assert!(
            Budget {
                max_tokens: Some(1000)
            }
            .exceeded(&ledger)
            .is_some()
        );
        assert!(Budget { max_tokens: None }.exceeded(&ledger).is_none());
    }
}
