//! Billing: an organisation's payment methods (made, listed, changed,
//! deleted), and its invoices (none: the fake bills nothing, so each
//! list is empty and each invoice `404`).
//!
//! - `payment_method`: [`PaymentMethod`] (also its world-document entry),
//!   its operations and view.
//! - `invoice`: the invoice operations.

mod invoice;
mod payment_method;

pub(crate) use invoice::RESOURCE as INVOICES;
pub use payment_method::{BillingAddress, PaymentMethod};
pub(crate) use payment_method::{Kept, RESOURCE as PAYMENT_METHODS};

/// The collection of payment methods' paths and hrefs.
pub(crate) const PAYMENT_METHOD_COLLECTION: &str = "payment-methods";

crate::model::journal::owned_table! {
    /// The world's organisations' payment methods, by ID: written only here.
    PaymentMethods of Kept
}
