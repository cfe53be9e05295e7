//! The elementary functions of [`Rev`] (`num-dual`'s `DualNum`): each records its value and
//! its derivative at the operand.

use std::f64::consts::{LN_10, LN_2};

use num_dual::DualNum;

use super::tape::{binary, shifted, unary};
use super::Rev;

/// `fn name(&self) -> Rev` recording `value(x)` with derivative `partial(x, value)`.
macro_rules! elementary {
    ($($name:ident: |$x:ident, $v:ident| $value:expr, $partial:expr;)*) => {$(
        #[inline]
        fn $name(&self) -> Rev {
            let $x = self.value;
            let $v = $value;
            unary($v, *self, $partial)
        }
    )*};
}

impl DualNum for Rev {
    type Primitive = f64;

    const NDERIV: usize = 1;

    type InnerDual = f64;

    fn from_re(re: f64) -> Rev {
        Rev::constant(re)
    }

    fn scale(self, factor: &f64) -> Rev {
        self * *factor
    }

    fn powi(&self, n: i32) -> Rev {
        match n {
            0 => Rev::constant(1.0),
            1 => *self,
            _ => unary(
                self.value.powi(n),
                *self,
                f64::from(n) * self.value.powi(n.saturating_sub(1)),
            ),
        }
    }

    fn powf(&self, n: f64) -> Rev {
        if n == 0.0 {
            Rev::constant(1.0)
        } else if n == 1.0 {
            *self
        } else {
            unary(self.value.powf(n), *self, n * self.value.powf(n - 1.0))
        }
    }

    fn sin_cos(&self) -> (Rev, Rev) {
        let (s, c) = self.value.sin_cos();
        (unary(s, *self, c), unary(c, *self, -s))
    }

    /// `atan2(self, x)`: the angle of the point (x, self).
    fn atan2(&self, x: Rev) -> Rev {
        let (y, xv) = (self.value, x.value);
        let r2 = xv * xv + y * y;
        binary(y.atan2(xv), *self, xv / r2, x, -y / r2)
    }

    // The spherical Bessel functions as `f64` defines them, composed of taped operations.
    fn sph_j0(&self) -> Rev {
        if self.value.abs() < f64::EPSILON {
            Rev::constant(1.0) - *self * *self / 6.0
        } else {
            self.sin() / *self
        }
    }

    fn sph_j1(&self) -> Rev {
        if self.value.abs() < f64::EPSILON {
            *self / 3.0
        } else {
            let (s, c) = self.sin_cos();
            let r = self.recip();
            (s * r - c) * r
        }
    }

    fn sph_j2(&self) -> Rev {
        if self.value.abs() < f64::EPSILON {
            *self * *self / 15.0
        } else {
            let (s, c) = self.sin_cos();
            let x2 = *self * *self;
            ((Rev::constant(3.0) - x2) * s - Rev::constant(3.0) * *self * c) / (*self * x2)
        }
    }

    /// Fused, as `f64::mul_add`: the value is rounded once. The product's node carries the
    /// derivatives with respect to `self` and `a`, a second one adds `b`'s.
    fn mul_add(&self, a: Rev, b: Rev) -> Rev {
        let value = self.value.mul_add(a.value, b.value);
        let product = binary(value, *self, a.value, a, self.value);
        if b.is_constant() {
            shifted(value, product)
        } else {
            binary(value, product, 1.0, b, 1.0)
        }
    }

    /// `self^exponent` with `f64::powf`'s value.
    fn powd(&self, exponent: Rev) -> Rev {
        let (x, y) = (self.value, exponent.value);
        let value = x.powf(y);
        binary(value, *self, y * x.powf(y - 1.0), exponent, value * x.ln())
    }

    fn log(&self, base: f64) -> Rev {
        unary(self.value.log(base), *self, 1.0 / (self.value * base.ln()))
    }

    elementary! {
        recip: |x, v| x.recip(), -v * v;
        sqrt: |x, v| x.sqrt(), 0.5 / v;
        cbrt: |x, v| x.cbrt(), 1.0 / (3.0 * v * v);
        exp: |x, v| x.exp(), v;
        exp2: |x, v| x.exp2(), v * LN_2;
        exp_m1: |x, v| x.exp_m1(), x.exp();
        ln: |x, v| x.ln(), 1.0 / x;
        log2: |x, v| x.log2(), 1.0 / (x * LN_2);
        log10: |x, v| x.log10(), 1.0 / (x * LN_10);
        ln_1p: |x, v| x.ln_1p(), 1.0 / (1.0 + x);
        sin: |x, v| x.sin(), x.cos();
        cos: |x, v| x.cos(), -x.sin();
        tan: |x, v| x.tan(), 1.0 + v * v;
        asin: |x, v| x.asin(), 1.0 / (1.0 - x * x).sqrt();
        acos: |x, v| x.acos(), -1.0 / (1.0 - x * x).sqrt();
        atan: |x, v| x.atan(), 1.0 / (1.0 + x * x);
        sinh: |x, v| x.sinh(), x.cosh();
        cosh: |x, v| x.cosh(), x.sinh();
        tanh: |x, v| x.tanh(), 1.0 - v * v;
        asinh: |x, v| x.asinh(), 1.0 / (x * x + 1.0).sqrt();
        acosh: |x, v| x.acosh(), 1.0 / (x * x - 1.0).sqrt();
        atanh: |x, v| x.atanh(), 1.0 / (1.0 - x * x);
    }
}
