//! Whether a word of a message names a resource: its name or an alias,
//! else a fuzzy match (a prefix of at least four characters, one of its
//! hyphen parts, or a part of the name of at least five characters).
//! Context prefetch and the router resolve names by the same rules.

use warden_protocol::Resource;

/// Common words that are never taken for resource names.
const STOPWORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "from",
    "logs",
    "log",
    "show",
    "check",
    "what",
    "why",
    "how",
    "restart",
    "start",
    "stop",
    "status",
    "service",
    "services",
    "disk",
    "memory",
    "cpu",
    "config",
    "file",
    "host",
    "node",
    "container",
    "please",
    "then",
    "this",
    "that",
    "all",
    "last",
    "lines",
    "running",
    "usage",
];

pub fn name_matches(resource: &Resource, word: &str) -> bool {
    let word = word.to_lowercase();
    if STOPWORDS.contains(&word.as_str()) {
        return false;
    }
    let names = std::iter::once(&resource.name).chain(resource.aliases.iter());
    names.map(|n| n.to_lowercase()).any(|name| {
        name == word
            || (word.len() >= 4 && name.starts_with(&word))
            || (word.len() >= 4 && name.split(['-', '_', '.']).any(|part| part == word))
            || (word.len() >= 5 && name.contains(&word))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_aliases_and_fuzzy_rules() {
        let mut resource = Resource::new(
            "docker_container:media:abc".parse().unwrap(),
            "homepage-docker",
        );
        resource.aliases = vec!["Portal".into()];
        let cases: &[(&str, bool)] = &[
            ("homepage-docker", true),
            ("HOMEPAGE-DOCKER", true),
            ("portal", true),
            // A prefix of at least four characters.
            ("home", true),
            ("hom", false),
            // A hyphen part of at least four characters.
            ("docker", true),
            // A part of the name of at least five characters.
            ("epage", true),
            ("page", false),
            ("nginx", false),
        ];
        for (word, expected) in cases {
            assert_eq!(name_matches(&resource, word), *expected, "{word}");
        }
        // A stopword is never a name, even when it is one.
        let called_status = Resource::new("host:status".parse().unwrap(), "status");
        assert!(!name_matches(&called_status, "status"));
    }
}
