//! Fixes to progenitor 0.15's httpmock extension, where what it emits for
//! some operations does not compile. Each rewrites the generated syntax
//! tree; none changes the client or what it sends.

use syn::visit_mut::VisitMut;
use syn::{parse_quote, Expr, FnArg, ImplItemFn, Pat, Type};

/// Applies every fix to the mock's syntax tree.
pub fn fix(file: &mut syn::File) {
    Fixes::default().visit_file_mut(file);
}

/// What the fixes look at in the method being visited.
#[derive(Default)]
struct Fixes {
    /// The method's `value` parameter is taken by value, not by reference.
    value_by_value: bool,
    /// The method's parameter is a list (`Vec`), given by reference.
    value_is_list: bool,
}

impl VisitMut for Fixes {
    fn visit_impl_item_fn_mut(&mut self, f: &mut ImplItemFn) {
        let value_ty = f.sig.inputs.iter().find_map(|arg| match arg {
            FnArg::Typed(t) if matches!(&*t.pat, Pat::Ident(p) if p.ident == "value") => {
                Some(&*t.ty)
            }
            _ => None,
        });
        self.value_by_value =
            value_ty.is_some_and(|ty| !matches!(ty, Type::Reference(_)) && !is_generic(ty));
        // A list parameter shows as `&Vec<_>`, or, when optional, as the
        // bound `T: Into<Option<&'a Vec<_>>>` of the method's `T`.
        let sig = quote::ToTokens::to_token_stream(&f.sig).to_string();
        self.value_is_list = sig.contains(":: std :: vec :: Vec <");
        syn::visit_mut::visit_impl_item_fn_mut(self, f);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::MethodCall(call) = expr else {
            return;
        };
        if self.value_by_value && call.method == "json_body_obj" && is_value(call.args.first()) {
            // Fix 1: a body of a scalar type (`updateBgpSession` takes a
            // bare JSON boolean) is passed by value, but `json_body_obj`
            // takes a reference; pass one.
            call.args[0] = parse_quote!(&value);
        } else if self.value_is_list && call.method == "query_param" && call.args.len() == 2 {
            // Fix 2: a list query parameter (`types`, `categories`) is sent
            // as repeated keys, one per item; expect each item as its own
            // key, and no key for an empty list (the client sends none),
            // instead of calling `to_string` on the list, which has none.
            let name = &call.args[0];
            if !is_to_string_of_value(&call.args[1]) {
                return;
            }
            let when = &call.receiver;
            *expr = parse_quote! {
                if value.is_empty() {
                    #when.query_param_missing(#name)
                } else {
                    value.iter().fold(#when, |when, item| when.query_param(#name, item.to_string()))
                }
            };
        }
    }
}

/// Whether `ty` is a bare generic parameter such as `T`.
fn is_generic(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1
        && p.path.segments[0].arguments.is_empty()
        && p.path.segments[0].ident.to_string().len() == 1)
}

/// Whether `arg` is the expression `value`.
fn is_value(arg: Option<&Expr>) -> bool {
    matches!(arg, Some(Expr::Path(p)) if p.path.is_ident("value"))
}

/// Whether `arg` is `value.to_string()`.
fn is_to_string_of_value(arg: &Expr) -> bool {
    matches!(arg, Expr::MethodCall(m) if m.method == "to_string" && is_value(Some(&m.receiver)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed(code: &str) -> String {
        let mut file: syn::File = syn::parse_str(code).unwrap();
        fix(&mut file);
        prettyplease::unparse(&file)
    }

    fn pretty(code: &str) -> String {
        prettyplease::unparse(&syn::parse_str(code).unwrap())
    }

    #[test]
    fn a_scalar_body_is_passed_by_reference_and_others_stay() {
        let out = fixed(
            "impl W {
                pub fn body(self, value: bool) -> Self { Self(self.0.json_body_obj(value)) }
                pub fn other(self, value: &types::X) -> Self { Self(self.0.json_body_obj(value)) }
            }",
        );
        assert!(out.contains("json_body_obj(&value)"), "{out}");
        assert!(
            out.contains("json_body_obj(value)"),
            "the reference stays: {out}"
        );
    }

    #[test]
    fn a_list_query_parameter_expects_each_item_and_scalars_stay() {
        let out = fixed(
            r#"impl W {
                pub fn types<'a, T>(self, value: T) -> Self
                where T: Into<Option<&'a ::std::vec::Vec<types::Item>>>,
                {
                    if let Some(value) = value.into() {
                        Self(self.0.query_param("types", value.to_string()))
                    } else {
                        Self(self.0.query_param_missing("types"))
                    }
                }
                pub fn all(self, value: &::std::vec::Vec<types::Item>) -> Self {
                    Self(self.0.query_param("all", value.to_string()))
                }
                pub fn page<T>(self, value: T) -> Self where T: Into<Option<i64>> {
                    if let Some(value) = value.into() {
                        Self(self.0.query_param("page", value.to_string()))
                    } else {
                        Self(self.0.query_param_missing("page"))
                    }
                }
            }"#,
        );
        let expected = pretty(
            r#"impl W {
                pub fn types<'a, T>(self, value: T) -> Self
                where T: Into<Option<&'a ::std::vec::Vec<types::Item>>>,
                {
                    if let Some(value) = value.into() {
                        Self(if value.is_empty() {
                            self.0.query_param_missing("types")
                        } else {
                            value.iter().fold(self.0, |when, item| when.query_param("types", item.to_string()))
                        })
                    } else {
                        Self(self.0.query_param_missing("types"))
                    }
                }
                pub fn all(self, value: &::std::vec::Vec<types::Item>) -> Self {
                    Self(if value.is_empty() {
                        self.0.query_param_missing("all")
                    } else {
                        value.iter().fold(self.0, |when, item| when.query_param("all", item.to_string()))
                    })
                }
                pub fn page<T>(self, value: T) -> Self where T: Into<Option<i64>> {
                    if let Some(value) = value.into() {
                        Self(self.0.query_param("page", value.to_string()))
                    } else {
                        Self(self.0.query_param_missing("page"))
                    }
                }
            }"#,
        );
        assert_eq!(out, expected);
    }
}
