//! The spot market: the hourly prices of spare machines ([`price`]), and
//! the requests that bid for them and make spot devices ([`request`]).

pub(crate) mod price;
pub(crate) mod request;
