;; Quire's per-pixel kernels in WebAssembly text (loaded by kernels.ts, assembled by the build with wabt).
;; Every pointer is a byte offset in the memory the module is given; the caller lays out the buffers in it.
;; Each kernel gives the bytes the JavaScript it replaced gave, on every machine: integer arithmetic, or IEEE floating
;; point in the same order (WebAssembly does not fuse a multiply and an add).
(module
  (import "quire" "memory" (memory 1))

  ;; ---- Bicubic enlargement (resize.ts, enlargeBicubic) --------------------------------------------------------
  ;; Weights are fixed point with 12 fractional bits: each sum gets 2048 (a half) added and is shifted right by 12,
  ;; the row's sums before the column's, as libvips' 8-bit interpolator does.

  ;; One source row ($w bytes at $src) enlarged to $W samples (i32 at $dst): the row is copied into $pad with its
  ;; edge values repeated twice on each side, then output o sums the four samples from $pad[$fx[o]] with the four
  ;; weights at $wt[$kx[o]] (both tables i32, indices in elements).
  (func $row (param $src i32) (param $w i32) (param $pad i32) (param $fx i32) (param $kx i32) (param $W i32) (param $wt i32) (param $dst i32)
    (local $x i32) (local $o i32) (local $s i32) (local $k i32) (local $sum i32) (local $e i32)
    ;; edges
    (local.set $e (i32.load8_u (local.get $src)))
    (i32.store (local.get $pad) (local.get $e))
    (i32.store offset=4 (local.get $pad) (local.get $e))
    (local.set $e (i32.load8_u (i32.add (local.get $src) (i32.sub (local.get $w) (i32.const 1)))))
    (local.set $s (i32.add (local.get $pad) (i32.shl (i32.add (local.get $w) (i32.const 2)) (i32.const 2))))
    (i32.store (local.get $s) (local.get $e))
    (i32.store offset=4 (local.get $s) (local.get $e))
    (local.set $x (i32.const 0))
    (block $done (loop $copy
      (br_if $done (i32.ge_u (local.get $x) (local.get $w)))
      (i32.store offset=8 (i32.add (local.get $pad) (i32.shl (local.get $x) (i32.const 2)))
        (i32.load8_u (i32.add (local.get $src) (local.get $x))))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $copy)))
    (local.set $o (i32.const 0))
    (block $done2 (loop $taps
      (br_if $done2 (i32.ge_u (local.get $o) (local.get $W)))
      (local.set $s (i32.add (local.get $pad) (i32.shl (i32.load (i32.add (local.get $fx) (i32.shl (local.get $o) (i32.const 2)))) (i32.const 2))))
      (local.set $k (i32.add (local.get $wt) (i32.shl (i32.load (i32.add (local.get $kx) (i32.shl (local.get $o) (i32.const 2)))) (i32.const 2))))
      (local.set $sum (i32.add
        (i32.add (i32.mul (i32.load (local.get $s)) (i32.load (local.get $k)))
                 (i32.mul (i32.load offset=4 (local.get $s)) (i32.load offset=4 (local.get $k))))
        (i32.add (i32.mul (i32.load offset=8 (local.get $s)) (i32.load offset=8 (local.get $k)))
                 (i32.mul (i32.load offset=12 (local.get $s)) (i32.load offset=12 (local.get $k))))))
      (i32.store (i32.add (local.get $dst) (i32.shl (local.get $o) (i32.const 2)))
        (i32.shr_s (i32.add (local.get $sum) (i32.const 2048)) (i32.const 12)))
      (local.set $o (i32.add (local.get $o) (i32.const 1)))
      (br $taps)))
  )
  ;; Column pass of one output row: four enlarged rows (i32 × $W) with four weights into $W bytes at $out, clamped
  ;; to 0–255. Sixteen pixels a step: four i32x4 sums, narrowed with saturation to i16 and then to u8 (the clamp).
  (func $col (param $r0 i32) (param $r1 i32) (param $r2 i32) (param $r3 i32) (param $w0 i32) (param $w1 i32) (param $w2 i32) (param $w3 i32) (param $out i32) (param $W i32)
    (local $x i32) (local $b i32) (local $v i32)
    (local $v0 v128) (local $v1 v128) (local $v2 v128) (local $v3 v128) (local $half v128)
    (local $a v128) (local $bb v128) (local $c v128) (local $d v128)
    (local.set $v0 (i32x4.splat (local.get $w0)))
    (local.set $v1 (i32x4.splat (local.get $w1)))
    (local.set $v2 (i32x4.splat (local.get $w2)))
    (local.set $v3 (i32x4.splat (local.get $w3)))
    (local.set $half (i32x4.splat (i32.const 2048)))
    (local.set $x (i32.const 0))
    (block $done (loop $simd
      (br_if $done (i32.gt_u (i32.add (local.get $x) (i32.const 16)) (local.get $W)))
      (local.set $b (i32.shl (local.get $x) (i32.const 2)))
      (local.set $a (i32x4.shr_s (i32x4.add (i32x4.add
          (i32x4.add (i32x4.mul (v128.load (i32.add (local.get $r0) (local.get $b))) (local.get $v0))
                     (i32x4.mul (v128.load (i32.add (local.get $r1) (local.get $b))) (local.get $v1)))
          (i32x4.add (i32x4.mul (v128.load (i32.add (local.get $r2) (local.get $b))) (local.get $v2))
                     (i32x4.mul (v128.load (i32.add (local.get $r3) (local.get $b))) (local.get $v3)))) (local.get $half)) (i32.const 12)))
      (local.set $bb (i32x4.shr_s (i32x4.add (i32x4.add
          (i32x4.add (i32x4.mul (v128.load offset=16 (i32.add (local.get $r0) (local.get $b))) (local.get $v0))
                     (i32x4.mul (v128.load offset=16 (i32.add (local.get $r1) (local.get $b))) (local.get $v1)))
          (i32x4.add (i32x4.mul (v128.load offset=16 (i32.add (local.get $r2) (local.get $b))) (local.get $v2))
                     (i32x4.mul (v128.load offset=16 (i32.add (local.get $r3) (local.get $b))) (local.get $v3)))) (local.get $half)) (i32.const 12)))
      (local.set $c (i32x4.shr_s (i32x4.add (i32x4.add
          (i32x4.add (i32x4.mul (v128.load offset=32 (i32.add (local.get $r0) (local.get $b))) (local.get $v0))
                     (i32x4.mul (v128.load offset=32 (i32.add (local.get $r1) (local.get $b))) (local.get $v1)))
          (i32x4.add (i32x4.mul (v128.load offset=32 (i32.add (local.get $r2) (local.get $b))) (local.get $v2))
                     (i32x4.mul (v128.load offset=32 (i32.add (local.get $r3) (local.get $b))) (local.get $v3)))) (local.get $half)) (i32.const 12)))
      (local.set $d (i32x4.shr_s (i32x4.add (i32x4.add
          (i32x4.add (i32x4.mul (v128.load offset=48 (i32.add (local.get $r0) (local.get $b))) (local.get $v0))
                     (i32x4.mul (v128.load offset=48 (i32.add (local.get $r1) (local.get $b))) (local.get $v1)))
          (i32x4.add (i32x4.mul (v128.load offset=48 (i32.add (local.get $r2) (local.get $b))) (local.get $v2))
                     (i32x4.mul (v128.load offset=48 (i32.add (local.get $r3) (local.get $b))) (local.get $v3)))) (local.get $half)) (i32.const 12)))
      (v128.store (i32.add (local.get $out) (local.get $x))
        (i8x16.narrow_i16x8_u (i16x8.narrow_i32x4_s (local.get $a) (local.get $bb)) (i16x8.narrow_i32x4_s (local.get $c) (local.get $d))))
      (local.set $x (i32.add (local.get $x) (i32.const 16)))
      (br $simd)))
    (block $done2 (loop $tail
      (br_if $done2 (i32.ge_u (local.get $x) (local.get $W)))
      (local.set $b (i32.shl (local.get $x) (i32.const 2)))
      (local.set $v (i32.shr_s (i32.add (i32.add (i32.add
          (i32.mul (i32.load (i32.add (local.get $r0) (local.get $b))) (local.get $w0))
          (i32.mul (i32.load (i32.add (local.get $r1) (local.get $b))) (local.get $w1)))
          (i32.add (i32.mul (i32.load (i32.add (local.get $r2) (local.get $b))) (local.get $w2))
          (i32.mul (i32.load (i32.add (local.get $r3) (local.get $b))) (local.get $w3)))) (i32.const 2048)) (i32.const 12)))
      (i32.store8 (i32.add (local.get $out) (local.get $x))
        (select (i32.const 0) (select (i32.const 255) (local.get $v) (i32.gt_s (local.get $v) (i32.const 255))) (i32.lt_s (local.get $v) (i32.const 0))))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $tail)))
  )
  ;; The whole enlargement of $w × $h bytes at $src to $W × $H bytes at $out. Tables: $fx/$kx (i32 × $W) and
  ;; $fy/$ky (i32 × $H) the first tap and weight row of each output column and row, $wt the weights (i32 × 4 a
  ;; position); scratch: $pad (i32 × $w + 4), $ring (i32 × 4 $W: four enlarged rows, padded source row j in slot
  ;; (j + 2) & 3) and $slots (i32 × 4: which row each slot holds).
  (func (export "enlarge") (param $src i32) (param $w i32) (param $h i32) (param $out i32) (param $W i32) (param $H i32)
      (param $fx i32) (param $kx i32) (param $fy i32) (param $ky i32) (param $wt i32) (param $pad i32) (param $ring i32) (param $slots i32)
    (local $y i32) (local $j i32) (local $i i32) (local $jj i32) (local $slot i32) (local $k i32) (local $sr i32)
    ;; The slots start empty (row −3 is never asked for).
    (i32.store (local.get $slots) (i32.const -3))
    (i32.store offset=4 (local.get $slots) (i32.const -3))
    (i32.store offset=8 (local.get $slots) (i32.const -3))
    (i32.store offset=12 (local.get $slots) (i32.const -3))
    (local.set $y (i32.const 0))
    (block $done (loop $rows
      (br_if $done (i32.ge_u (local.get $y) (local.get $H)))
      (local.set $j (i32.sub (i32.load (i32.add (local.get $fy) (i32.shl (local.get $y) (i32.const 2)))) (i32.const 2)))
      (local.set $i (i32.const 0))
      (block $made (loop $make
        (br_if $made (i32.ge_u (local.get $i) (i32.const 4)))
        (local.set $jj (i32.add (local.get $j) (local.get $i)))
        (local.set $slot (i32.and (i32.add (local.get $jj) (i32.const 2)) (i32.const 3)))
        (if (i32.ne (i32.load (i32.add (local.get $slots) (i32.shl (local.get $slot) (i32.const 2)))) (local.get $jj))
          (then
            (local.set $sr (local.get $jj))
            (if (i32.lt_s (local.get $sr) (i32.const 0)) (then (local.set $sr (i32.const 0))))
            (if (i32.ge_s (local.get $sr) (local.get $h)) (then (local.set $sr (i32.sub (local.get $h) (i32.const 1)))))
            (call $row (i32.add (local.get $src) (i32.mul (local.get $sr) (local.get $w))) (local.get $w) (local.get $pad)
              (local.get $fx) (local.get $kx) (local.get $W) (local.get $wt)
              (i32.add (local.get $ring) (i32.shl (i32.mul (local.get $slot) (local.get $W)) (i32.const 2))))
            (i32.store (i32.add (local.get $slots) (i32.shl (local.get $slot) (i32.const 2))) (local.get $jj))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $make)))
      (local.set $k (i32.add (local.get $wt) (i32.shl (i32.load (i32.add (local.get $ky) (i32.shl (local.get $y) (i32.const 2)))) (i32.const 2))))
      (call $col
        (i32.add (local.get $ring) (i32.shl (i32.mul (i32.and (i32.add (local.get $j) (i32.const 2)) (i32.const 3)) (local.get $W)) (i32.const 2)))
        (i32.add (local.get $ring) (i32.shl (i32.mul (i32.and (i32.add (local.get $j) (i32.const 3)) (i32.const 3)) (local.get $W)) (i32.const 2)))
        (i32.add (local.get $ring) (i32.shl (i32.mul (i32.and (i32.add (local.get $j) (i32.const 4)) (i32.const 3)) (local.get $W)) (i32.const 2)))
        (i32.add (local.get $ring) (i32.shl (i32.mul (i32.and (i32.add (local.get $j) (i32.const 5)) (i32.const 3)) (local.get $W)) (i32.const 2)))
        (i32.load (local.get $k)) (i32.load offset=4 (local.get $k)) (i32.load offset=8 (local.get $k)) (i32.load offset=12 (local.get $k))
        (i32.add (local.get $out) (i32.mul (local.get $y) (local.get $W))) (local.get $W))
      (local.set $y (i32.add (local.get $y) (i32.const 1)))
      (br $rows)))
  )
  ;; ---- Block values across a row (threshold.ts: sauvolaBinarize, levelBackground) -------------------------------
  ;; Floating point here, in the order threshold.ts always did it (f64 throughout, each value rounded to f32 as it
  ;; is stored): WebAssembly's arithmetic is IEEE's, so the values are the same to the last bit.

  ;; $cols block values (f64 at $line, one per $f pixels, block i's centre at pixel i·$f + ($f − 1)/2) interpolated
  ;; linearly between centres over $width pixels into f32 at $dst: flat left of the first centre and right of the
  ;; last; each span between two centres starts at its value and grows by its step per pixel.
  (func $interpolate (param $line i32) (param $cols i32) (param $f f64) (param $width i32) (param $dst i32)
    (local $half f64) (local $x i32) (local $i i32) (local $end i32) (local $step f64) (local $t f64) (local $a f64) (local $v f32)
    (local.set $half (f64.div (f64.sub (local.get $f) (f64.const 1)) (f64.const 2)))
    ;; flat up to the first centre
    (local.set $end (i32.trunc_f64_s (f64.min (f64.convert_i32_s (local.get $width)) (f64.ceil (local.get $half)))))
    (local.set $v (f32.demote_f64 (f64.load (local.get $line))))
    (local.set $x (i32.const 0))
    (block $done (loop $fill
      (br_if $done (i32.ge_s (local.get $x) (local.get $end)))
      (f32.store (i32.add (local.get $dst) (i32.shl (local.get $x) (i32.const 2))) (local.get $v))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $fill)))
    (local.set $i (i32.const 0))
    (block $spans (loop $span
      (br_if $spans (i32.ge_s (local.get $i) (i32.sub (local.get $cols) (i32.const 1))))
      (br_if $spans (i32.ge_s (local.get $x) (local.get $width)))
      (local.set $end (i32.trunc_f64_s (f64.min (f64.convert_i32_s (local.get $width))
        (f64.ceil (f64.add (f64.mul (f64.convert_i32_s (i32.add (local.get $i) (i32.const 1))) (local.get $f)) (local.get $half))))))
      (local.set $a (f64.load (i32.add (local.get $line) (i32.shl (local.get $i) (i32.const 3)))))
      (local.set $step (f64.div (f64.sub (f64.load offset=8 (i32.add (local.get $line) (i32.shl (local.get $i) (i32.const 3)))) (local.get $a)) (local.get $f)))
      (local.set $t (f64.add (local.get $a) (f64.mul (local.get $step)
        (f64.sub (f64.convert_i32_s (local.get $x)) (f64.add (f64.mul (f64.convert_i32_s (local.get $i)) (local.get $f)) (local.get $half))))))
      (block $done2 (loop $run
        (br_if $done2 (i32.ge_s (local.get $x) (local.get $end)))
        (f32.store (i32.add (local.get $dst) (i32.shl (local.get $x) (i32.const 2))) (f32.demote_f64 (local.get $t)))
        (local.set $t (f64.add (local.get $t) (local.get $step)))
        (local.set $x (i32.add (local.get $x) (i32.const 1)))
        (br $run)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $span)))
    ;; flat after the last centre
    (local.set $v (f32.demote_f64 (f64.load (i32.add (local.get $line) (i32.shl (i32.sub (local.get $cols) (i32.const 1)) (i32.const 3))))))
    (block $done3 (loop $fill2
      (br_if $done3 (i32.ge_s (local.get $x) (local.get $width)))
      (f32.store (i32.add (local.get $dst) (i32.shl (local.get $x) (i32.const 2))) (local.get $v))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $fill2)))
  )

  ;; One row of the threshold: the block thresholds at $line interpolated into $thr (f32 × $width), then each of
  ;; the $width bytes at $src compared with its threshold: 0 (ink) below it, 255 (paper) at or above. Sixteen pixels
  ;; a step: widened to i32, converted to f32 (exact for bytes) and compared lane by lane.
  (func (export "thresholdRow") (param $src i32) (param $out i32) (param $width i32) (param $line i32) (param $cols i32) (param $f f64) (param $thr i32)
    (local $x i32) (local $p v128) (local $lo v128) (local $hi v128) (local $t i32)
    (call $interpolate (local.get $line) (local.get $cols) (local.get $f) (local.get $width) (local.get $thr))
    (local.set $x (i32.const 0))
    (block $done (loop $simd
      (br_if $done (i32.gt_s (i32.add (local.get $x) (i32.const 16)) (local.get $width)))
      (local.set $p (v128.load (i32.add (local.get $src) (local.get $x))))
      (local.set $t (i32.add (local.get $thr) (i32.shl (local.get $x) (i32.const 2))))
      (local.set $lo (i16x8.extend_low_i8x16_u (local.get $p)))
      (local.set $hi (i16x8.extend_high_i8x16_u (local.get $p)))
      ;; lanes −1 where the pixel is below its threshold; narrowed to bytes and inverted: 0 there, 255 elsewhere
      (v128.store (i32.add (local.get $out) (local.get $x))
        (v128.not (i8x16.narrow_i16x8_s
          (i16x8.narrow_i32x4_s
            (f32x4.lt (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $lo))) (v128.load (local.get $t)))
            (f32x4.lt (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $lo))) (v128.load offset=16 (local.get $t))))
          (i16x8.narrow_i32x4_s
            (f32x4.lt (f32x4.convert_i32x4_u (i32x4.extend_low_i16x8_u (local.get $hi))) (v128.load offset=32 (local.get $t)))
            (f32x4.lt (f32x4.convert_i32x4_u (i32x4.extend_high_i16x8_u (local.get $hi))) (v128.load offset=48 (local.get $t)))))))
      (local.set $x (i32.add (local.get $x) (i32.const 16)))
      (br $simd)))
    (block $done2 (loop $tail
      (br_if $done2 (i32.ge_s (local.get $x) (local.get $width)))
      (i32.store8 (i32.add (local.get $out) (local.get $x))
        (select (i32.const 0) (i32.const 255)
          (f32.lt (f32.convert_i32_u (i32.load8_u (i32.add (local.get $src) (local.get $x))))
                  (f32.load (i32.add (local.get $thr) (i32.shl (local.get $x) (i32.const 2)))))))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $tail)))
  )

  ;; One row of the levelled page: the block gains at $line interpolated into $gain (f32 × $width), then each byte
  ;; at $src times its gain, plus a half, truncated and clipped at 255 (in f64, as threshold.ts does).
  (func (export "levelRow") (param $src i32) (param $out i32) (param $width i32) (param $line i32) (param $cols i32) (param $f f64) (param $gain i32)
    (local $x i32) (local $v f64)
    (call $interpolate (local.get $line) (local.get $cols) (local.get $f) (local.get $width) (local.get $gain))
    (local.set $x (i32.const 0))
    (block $done (loop $pixels
      (br_if $done (i32.ge_s (local.get $x) (local.get $width)))
      (local.set $v (f64.add (f64.mul (f64.convert_i32_u (i32.load8_u (i32.add (local.get $src) (local.get $x))))
        (f64.promote_f32 (f32.load (i32.add (local.get $gain) (i32.shl (local.get $x) (i32.const 2)))))) (f64.const 0.5)))
      (i32.store8 (i32.add (local.get $out) (local.get $x))
        (select (i32.const 255) (i32.trunc_sat_f64_u (local.get $v)) (f64.ge (local.get $v) (f64.const 255))))
      (local.set $x (i32.add (local.get $x) (i32.const 1)))
      (br $pixels)))
  )
  ;; ---- Block sums (blocks.ts, blockSums) -----------------------------------------------------------------------

  ;; Sums of grey and grey² over each $f × $f block of the $width × $height bytes at $src (the last row and column
  ;; of blocks may be smaller), into f64 at $sum, $sq and $count (one per block, row by row). Each band of $f rows is
  ;; first summed down its columns, sixteen pixels a step (i32 at $cols and $cols2, $width each), then each block
  ;; adds its $f columns. Integers throughout: the sums are exact.
  (func (export "blockSums") (param $src i32) (param $width i32) (param $height i32) (param $f i32) (param $cols i32) (param $cols2 i32)
      (param $sum i32) (param $sq i32) (param $count i32)
    (local $y0 i32) (local $y1 i32) (local $y i32) (local $x i32) (local $x1 i32) (local $row i32) (local $c i32) (local $c2 i32)
    (local $p v128) (local $lo v128) (local $hi v128) (local $s i64) (local $q i64) (local $o i32) (local $v i32)
    (local.set $o (i32.const 0))
    (local.set $y0 (i32.const 0))
    (block $bands (loop $band
      (br_if $bands (i32.ge_s (local.get $y0) (local.get $height)))
      (local.set $y1 (select (local.get $height) (i32.add (local.get $y0) (local.get $f))
        (i32.gt_s (i32.add (local.get $y0) (local.get $f)) (local.get $height))))
      (memory.fill (local.get $cols) (i32.const 0) (i32.shl (local.get $width) (i32.const 2)))
      (memory.fill (local.get $cols2) (i32.const 0) (i32.shl (local.get $width) (i32.const 2)))
      (local.set $y (local.get $y0))
      (block $rows (loop $rowLoop
        (br_if $rows (i32.ge_s (local.get $y) (local.get $y1)))
        (local.set $row (i32.add (local.get $src) (i32.mul (local.get $y) (local.get $width))))
        (local.set $x (i32.const 0))
        (block $done (loop $simd
          (br_if $done (i32.gt_s (i32.add (local.get $x) (i32.const 16)) (local.get $width)))
          (local.set $p (v128.load (i32.add (local.get $row) (local.get $x))))
          (local.set $lo (i16x8.extend_low_i8x16_u (local.get $p)))
          (local.set $hi (i16x8.extend_high_i8x16_u (local.get $p)))
          (local.set $c (i32.add (local.get $cols) (i32.shl (local.get $x) (i32.const 2))))
          (local.set $c2 (i32.add (local.get $cols2) (i32.shl (local.get $x) (i32.const 2))))
          (v128.store (local.get $c) (i32x4.add (v128.load (local.get $c)) (i32x4.extend_low_i16x8_u (local.get $lo))))
          (v128.store offset=16 (local.get $c) (i32x4.add (v128.load offset=16 (local.get $c)) (i32x4.extend_high_i16x8_u (local.get $lo))))
          (v128.store offset=32 (local.get $c) (i32x4.add (v128.load offset=32 (local.get $c)) (i32x4.extend_low_i16x8_u (local.get $hi))))
          (v128.store offset=48 (local.get $c) (i32x4.add (v128.load offset=48 (local.get $c)) (i32x4.extend_high_i16x8_u (local.get $hi))))
          (v128.store (local.get $c2) (i32x4.add (v128.load (local.get $c2)) (i32x4.extmul_low_i16x8_u (local.get $lo) (local.get $lo))))
          (v128.store offset=16 (local.get $c2) (i32x4.add (v128.load offset=16 (local.get $c2)) (i32x4.extmul_high_i16x8_u (local.get $lo) (local.get $lo))))
          (v128.store offset=32 (local.get $c2) (i32x4.add (v128.load offset=32 (local.get $c2)) (i32x4.extmul_low_i16x8_u (local.get $hi) (local.get $hi))))
          (v128.store offset=48 (local.get $c2) (i32x4.add (v128.load offset=48 (local.get $c2)) (i32x4.extmul_high_i16x8_u (local.get $hi) (local.get $hi))))
          (local.set $x (i32.add (local.get $x) (i32.const 16)))
          (br $simd)))
        (block $done2 (loop $tail
          (br_if $done2 (i32.ge_s (local.get $x) (local.get $width)))
          (local.set $v (i32.load8_u (i32.add (local.get $row) (local.get $x))))
          (local.set $c (i32.add (local.get $cols) (i32.shl (local.get $x) (i32.const 2))))
          (local.set $c2 (i32.add (local.get $cols2) (i32.shl (local.get $x) (i32.const 2))))
          (i32.store (local.get $c) (i32.add (i32.load (local.get $c)) (local.get $v)))
          (i32.store (local.get $c2) (i32.add (i32.load (local.get $c2)) (i32.mul (local.get $v) (local.get $v))))
          (local.set $x (i32.add (local.get $x) (i32.const 1)))
          (br $tail)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rowLoop)))
      ;; each block of the band adds its columns
      (local.set $x (i32.const 0))
      (block $blocks (loop $block
        (br_if $blocks (i32.ge_s (local.get $x) (local.get $width)))
        (local.set $x1 (select (local.get $width) (i32.add (local.get $x) (local.get $f))
          (i32.gt_s (i32.add (local.get $x) (local.get $f)) (local.get $width))))
        (f64.store (i32.add (local.get $count) (local.get $o))
          (f64.convert_i32_s (i32.mul (i32.sub (local.get $y1) (local.get $y0)) (i32.sub (local.get $x1) (local.get $x)))))
        (local.set $s (i64.const 0))
        (local.set $q (i64.const 0))
        (block $added (loop $add
          (br_if $added (i32.ge_s (local.get $x) (local.get $x1)))
          (local.set $s (i64.add (local.get $s) (i64.extend_i32_u (i32.load (i32.add (local.get $cols) (i32.shl (local.get $x) (i32.const 2)))))))
          (local.set $q (i64.add (local.get $q) (i64.extend_i32_u (i32.load (i32.add (local.get $cols2) (i32.shl (local.get $x) (i32.const 2)))))))
          (local.set $x (i32.add (local.get $x) (i32.const 1)))
          (br $add)))
        (f64.store (i32.add (local.get $sum) (local.get $o)) (f64.convert_i64_s (local.get $s)))
        (f64.store (i32.add (local.get $sq) (local.get $o)) (f64.convert_i64_s (local.get $q)))
        (local.set $o (i32.add (local.get $o) (i32.const 8)))
        (br $block)))
      (local.set $y0 (local.get $y1))
      (br $band)))
  )
  ;; ---- The sharpening's mix (blur.ts, unsharpMaskNative) --------------------------------------------------------

  ;; Each of the $n bytes at $src with its blurred value at $blurred looked up in the 256 × 256 table at $table
  ;; (page · 256 + blur, made in blur.ts), written over $blurred.
  (func (export "mix") (param $src i32) (param $blurred i32) (param $table i32) (param $n i32)
    (local $i i32) (local $b i32)
    (local.set $i (i32.const 0))
    (block $done (loop $pixels
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (local.set $b (i32.add (local.get $blurred) (local.get $i)))
      (i32.store8 (local.get $b)
        (i32.load8_u (i32.add (local.get $table)
          (i32.or (i32.shl (i32.load8_u (i32.add (local.get $src) (local.get $i))) (i32.const 8)) (i32.load8_u (local.get $b))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $pixels)))
  )
)
