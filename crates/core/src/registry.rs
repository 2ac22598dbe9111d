//! The one dispatch style every algorithm family uses: an enum with one variant per
//! registered algorithm that implements the family's trait by forwarding each hook to
//! the variant it holds (a `match`, so calls stay static; no `Box<dyn>`).
//!
//! Each family's `mod.rs` has a registration macro (e.g. `estimators!` in
//! `spikelab_tcp::rto`) holding its list, one line per algorithm; that macro generates
//! the configuration enum (serde tag names), the name list and the constructor, and
//! calls [`dispatch_enum!`] for the runtime enum and its trait forwarding.

/// Declares `enum $Enum` with one tuple variant per entry and implements `$Trait` for
/// it by forwarding every listed method to the variant's value.
///
/// ```
/// trait Speak {
///     fn word(&self) -> &'static str;
///     fn louder(&mut self, by: u32) -> u32;
/// }
/// struct Cat(u32);
/// struct Dog(u32);
/// impl Speak for Cat {
///     fn word(&self) -> &'static str { "meow" }
///     fn louder(&mut self, by: u32) -> u32 { self.0 += by; self.0 }
/// }
/// impl Speak for Dog {
///     fn word(&self) -> &'static str { "woof" }
///     fn louder(&mut self, by: u32) -> u32 { self.0 += 2 * by; self.0 }
/// }
/// spikelab_core::dispatch_enum! {
///     enum Pet: Speak { Cat(Cat), Dog(Dog) }
///     methods {
///         fn word(&self) -> &'static str;
///         fn louder(&mut self, by: u32) -> u32;
///     }
/// }
/// let mut p = Pet::Dog(Dog(1));
/// assert_eq!((p.word(), p.louder(2)), ("woof", 5));
/// ```
///
/// Every trait method must be listed (also those with a default body), otherwise the
/// enum would answer with the default instead of the variant's own method. A method's
/// attributes (e.g. `#[inline]` on a hook called on every ACK) go on its forwarding
/// method. A trait's associated constants are given their value for the enum in an
/// optional `consts { const NAME: Type = value; }` block before `methods` (e.g. the
/// `||` of the variants' own, so that a caller generic over the family reads it at
/// compile time).
#[macro_export]
macro_rules! dispatch_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Enum:ident : $Trait:path {
            $( $(#[$vmeta:meta])* $V:ident($T:ty) ),* $(,)?
        }
        $(consts { $(const $c:ident : $ct:ty = $cv:expr;)* })?
        methods { $($methods:tt)* }
    ) => {
        $(#[$meta])*
        $vis enum $Enum {
            $( $(#[$vmeta])* $V($T), )*
        }
        impl $Trait for $Enum {
            $($(const $c: $ct = $cv;)*)?
            $crate::dispatch_enum!(@methods [$($V)*] $($methods)*);
        }
    };
    (@methods $vs:tt) => {};
    (@methods $vs:tt
        $(#[$fmeta:meta])*
        fn $f:ident(&mut self $(, $a:ident : $t:ty)* $(,)?) $(-> $r:ty)?;
        $($rest:tt)*
    ) => {
        $(#[$fmeta])*
        fn $f(&mut self $(, $a: $t)*) $(-> $r)? {
            $crate::dispatch_enum!(@match self, $vs, inner => inner.$f($($a),*))
        }
        $crate::dispatch_enum!(@methods $vs $($rest)*);
    };
    (@methods $vs:tt
        $(#[$fmeta:meta])*
        fn $f:ident(&self $(, $a:ident : $t:ty)* $(,)?) $(-> $r:ty)?;
        $($rest:tt)*
    ) => {
        $(#[$fmeta])*
        fn $f(&self $(, $a: $t)*) $(-> $r)? {
            $crate::dispatch_enum!(@match self, $vs, inner => inner.$f($($a),*))
        }
        $crate::dispatch_enum!(@methods $vs $($rest)*);
    };
    (@match $s:expr, [$($V:ident)*], $e:ident => $call:expr) => {
        match $s {
            $( Self::$V($e) => $call, )*
        }
    };
}

#[cfg(test)]
mod tests {
    trait Count {
        const BIG: bool;
        fn get(&self) -> u32;
        fn add(&mut self, n: u32, twice: bool);
        fn name(&self) -> &'static str {
            "default"
        }
    }

    #[derive(Debug)]
    struct One(u32);
    #[derive(Debug)]
    struct Ten(u32);

    impl Count for One {
        const BIG: bool = false;
        fn get(&self) -> u32 {
            self.0
        }
        fn add(&mut self, n: u32, twice: bool) {
            self.0 += if twice { 2 * n } else { n };
        }
    }

    impl Count for Ten {
        const BIG: bool = true;
        fn get(&self) -> u32 {
            self.0 * 10
        }
        fn add(&mut self, n: u32, _twice: bool) {
            self.0 += n;
        }
        fn name(&self) -> &'static str {
            "ten"
        }
    }

    crate::dispatch_enum! {
        #[derive(Debug)]
        enum Either: Count { One(One), Ten(Ten) }
        consts { const BIG: bool = One::BIG || Ten::BIG; }
        methods {
            fn get(&self) -> u32;
            fn add(&mut self, n: u32, twice: bool);
            fn name(&self) -> &'static str;
        }
    }

    #[test]
    fn each_call_reaches_the_variant_held() {
        let mut a = Either::One(One(1));
        let mut b = Either::Ten(Ten(1));
        a.add(3, true);
        b.add(3, true);
        assert_eq!((a.get(), b.get()), (7, 40));
    }

    #[test]
    fn a_constant_takes_the_value_the_list_gives() {
        let big = [<Either as Count>::BIG, <One as Count>::BIG];
        assert_eq!(big, [true, false]);
    }

    #[test]
    fn a_listed_default_method_still_reaches_an_override() {
        assert_eq!(Either::One(One(0)).name(), "default");
        assert_eq!(Either::Ten(Ten(0)).name(), "ten");
    }
}
