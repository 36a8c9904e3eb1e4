//! Unit tests of the derive's stages on token input.

use quote::quote;

use super::case::RenameRule;

fn expand(tokens: proc_macro2::TokenStream) -> String {
    super::derive(tokens).to_string()
}

#[test]
fn rename_all_rules_match_serde_for_fields() {
    let cases = [
        ("lowercase", "user_name"),
        ("UPPERCASE", "USER_NAME"),
        ("PascalCase", "UserName"),
        ("camelCase", "userName"),
        ("snake_case", "user_name"),
        ("SCREAMING_SNAKE_CASE", "USER_NAME"),
        ("kebab-case", "user-name"),
        ("SCREAMING-KEBAB-CASE", "USER-NAME"),
    ];
    for (rule, expected) in cases {
        assert_eq!(
            RenameRule::parse(rule).unwrap().apply_to_field("user_name"),
            expected,
            "{rule}"
        );
    }
}

#[test]
fn rename_all_rules_match_serde_for_variants() {
    let cases = [
        ("lowercase", "inreview"),
        ("UPPERCASE", "INREVIEW"),
        ("PascalCase", "InReview"),
        ("camelCase", "inReview"),
        ("snake_case", "in_review"),
        ("SCREAMING_SNAKE_CASE", "IN_REVIEW"),
        ("kebab-case", "in-review"),
        ("SCREAMING-KEBAB-CASE", "IN-REVIEW"),
    ];
    for (rule, expected) in cases {
        assert_eq!(
            RenameRule::parse(rule)
                .unwrap()
                .apply_to_variant("InReview"),
            expected,
            "{rule}"
        );
    }
}

#[test]
fn unknown_rename_rules_are_left_to_serde() {
    assert_eq!(RenameRule::parse("Title Case"), None);
}

#[test]
fn a_valid_form_expands_without_compile_errors() {
    let out = expand(quote! {
        struct Deploy {
            /// Where to deploy.
            #[elicit(title = "Environment")]
            environment: String,
            #[elicit(min = 1, max = 10, default = 2)]
            replicas: u8,
        }
    });
    assert!(!out.contains("compile_error"), "{out}");
    assert!(out.contains("\"Where to deploy.\""), "{out}");
    assert!(
        out.contains(":: mrtr :: __private :: derive_elicit"),
        "{out}"
    );
}

#[test]
fn every_mistake_is_reported_in_one_expansion() {
    let out = expand(quote! {
        struct Bad {
            #[elicit(format = "phone")]
            a: String,
            #[elicit(colour = "red")]
            b: String,
            c: (u8, u8),
        }
    });
    assert_eq!(out.matches("compile_error").count(), 3, "{out}");
    // The fallback impl keeps the type usable so no cascade follows.
    assert!(out.contains("unreachable"), "{out}");
}

#[test]
fn a_generic_form_gets_no_fallback_impl() {
    let out = expand(quote! { struct Wrapper<T> { value: T } });
    assert!(out.contains("compile_error"), "{out}");
    assert!(!out.contains("unreachable"), "{out}");
}

#[test]
fn doc_comment_paragraphs_become_one_description() {
    let out = expand(quote! {
        struct Form {
            #[doc = " First line"]
            #[doc = " continues here."]
            #[doc = ""]
            #[doc = " Second paragraph."]
            field: String,
        }
    });
    assert!(
        out.contains(r#""First line continues here.\n\nSecond paragraph.""#),
        "{out}"
    );
}
