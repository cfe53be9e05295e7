//! The arithmetic of [`Rev`] and the number traits `num-dual`'s `DualNum` builds on:
//! operators (on values, references and `f64`), comparisons on the value (so that taped code
//! branches as plain `f64` code does), conversions.

use std::cmp::Ordering;
use std::fmt;
use std::iter::{Product, Sum};
use std::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, RemAssign, Sub, SubAssign,
};

use num_dual::{DualStruct, Mappable};
use num_traits::{FromPrimitive, Inv, Num, One, Signed, Zero};

use super::tape::{binary, shifted, unary};
use super::Rev;

#[inline]
fn add(a: Rev, b: Rev) -> Rev {
    let value = a.value + b.value;
    match (a.is_constant(), b.is_constant()) {
        (_, true) => shifted(value, a),
        (true, false) => shifted(value, b),
        (false, false) => binary(value, a, 1.0, b, 1.0),
    }
}

#[inline]
fn sub(a: Rev, b: Rev) -> Rev {
    let value = a.value - b.value;
    if b.is_constant() {
        shifted(value, a)
    } else {
        binary(value, a, 1.0, b, -1.0)
    }
}

#[inline]
fn mul(a: Rev, b: Rev) -> Rev {
    binary(a.value * b.value, a, b.value, b, a.value)
}

#[inline]
fn div(a: Rev, b: Rev) -> Rev {
    let value = a.value / b.value;
    binary(value, a, 1.0 / b.value, b, -value / b.value)
}

/// `a % b = a − trunc(a / b) b`.
#[inline]
fn rem(a: Rev, b: Rev) -> Rev {
    binary(a.value % b.value, a, 1.0, b, -(a.value / b.value).trunc())
}

/// Implements an operator and its assigning form for every combination of `Rev`, `&Rev` and
/// `f64` (right-hand side) that `num-dual`'s traits ask for.
macro_rules! operator {
    ($trait:ident, $method:ident, $assign:ident, $assign_method:ident, $function:ident) => {
        impl $trait for Rev {
            type Output = Rev;
            #[inline]
            fn $method(self, b: Rev) -> Rev {
                $function(self, b)
            }
        }
        impl $trait<&Rev> for Rev {
            type Output = Rev;
            #[inline]
            fn $method(self, b: &Rev) -> Rev {
                $function(self, *b)
            }
        }
        impl $trait<Rev> for &Rev {
            type Output = Rev;
            #[inline]
            fn $method(self, b: Rev) -> Rev {
                $function(*self, b)
            }
        }
        impl $trait<&Rev> for &Rev {
            type Output = Rev;
            #[inline]
            fn $method(self, b: &Rev) -> Rev {
                $function(*self, *b)
            }
        }
        impl $trait<f64> for Rev {
            type Output = Rev;
            #[inline]
            fn $method(self, b: f64) -> Rev {
                $function(self, Rev::constant(b))
            }
        }
        impl $assign for Rev {
            #[inline]
            fn $assign_method(&mut self, b: Rev) {
                *self = $function(*self, b);
            }
        }
        impl $assign<f64> for Rev {
            #[inline]
            fn $assign_method(&mut self, b: f64) {
                *self = $function(*self, Rev::constant(b));
            }
        }
    };
}

operator!(Add, add, AddAssign, add_assign, add);
operator!(Sub, sub, SubAssign, sub_assign, sub);
operator!(Mul, mul, MulAssign, mul_assign, mul);
operator!(Div, div, DivAssign, div_assign, div);
operator!(Rem, rem, RemAssign, rem_assign, rem);

impl Neg for Rev {
    type Output = Rev;
    #[inline]
    fn neg(self) -> Rev {
        unary(-self.value, self, -1.0)
    }
}

impl Neg for &Rev {
    type Output = Rev;
    #[inline]
    fn neg(self) -> Rev {
        -*self
    }
}

impl Zero for Rev {
    fn zero() -> Rev {
        Rev::constant(0.0)
    }
    fn is_zero(&self) -> bool {
        self.value == 0.0
    }
}

impl One for Rev {
    fn one() -> Rev {
        Rev::constant(1.0)
    }
}

impl Num for Rev {
    type FromStrRadixErr = <f64 as Num>::FromStrRadixErr;
    fn from_str_radix(text: &str, radix: u32) -> Result<Rev, Self::FromStrRadixErr> {
        <f64 as Num>::from_str_radix(text, radix).map(Rev::constant)
    }
}

impl Signed for Rev {
    fn abs(&self) -> Rev {
        if self.value.is_sign_negative() {
            -*self
        } else {
            *self
        }
    }
    fn abs_sub(&self, other: &Rev) -> Rev {
        if self.value > other.value {
            *self - *other
        } else {
            Rev::constant(0.0)
        }
    }
    fn signum(&self) -> Rev {
        Rev::constant(Signed::signum(&self.value))
    }
    fn is_positive(&self) -> bool {
        Signed::is_positive(&self.value)
    }
    fn is_negative(&self) -> bool {
        Signed::is_negative(&self.value)
    }
}

impl Inv for Rev {
    type Output = Rev;
    fn inv(self) -> Rev {
        num_dual::DualNum::recip(&self)
    }
}

impl Sum for Rev {
    fn sum<I: Iterator<Item = Rev>>(iter: I) -> Rev {
        iter.fold(Rev::constant(0.0), add)
    }
}

impl Product for Rev {
    fn product<I: Iterator<Item = Rev>>(iter: I) -> Rev {
        iter.fold(Rev::constant(1.0), mul)
    }
}

impl From<f64> for Rev {
    fn from(value: f64) -> Rev {
        Rev::constant(value)
    }
}

/// `FromPrimitive` through `f64`'s.
macro_rules! from_primitive {
    ($($method:ident: $ty:ty),*) => {
        impl FromPrimitive for Rev {
            $(fn $method(n: $ty) -> Option<Rev> {
                <f64 as FromPrimitive>::$method(n).map(Rev::constant)
            })*
        }
    };
}

from_primitive!(
    from_isize: isize, from_i8: i8, from_i16: i16, from_i32: i32, from_i64: i64,
    from_i128: i128, from_usize: usize, from_u8: u8, from_u16: u16, from_u32: u32,
    from_u64: u64, from_u128: u128, from_f32: f32, from_f64: f64
);

impl PartialEq for Rev {
    fn eq(&self, other: &Rev) -> bool {
        self.value == other.value
    }
}

impl PartialEq<f64> for Rev {
    fn eq(&self, other: &f64) -> bool {
        self.value == *other
    }
}

impl PartialOrd for Rev {
    fn partial_cmp(&self, other: &Rev) -> Option<Ordering> {
        self.value.partial_cmp(&other.value)
    }
}

impl PartialOrd<f64> for Rev {
    fn partial_cmp(&self, other: &f64) -> Option<Ordering> {
        self.value.partial_cmp(other)
    }
}

impl fmt::Display for Rev {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

impl DualStruct for Rev {
    type Real = f64;
    type Inner = f64;
    fn re(&self) -> f64 {
        self.value
    }
    fn from_inner(inner: &f64) -> Rev {
        Rev::constant(*inner)
    }
}

impl Mappable<Rev> for Rev {
    type Output<O> = O;
    fn map_dual<M: Fn(Rev) -> O, O>(self, f: M) -> O {
        f(self)
    }
}
