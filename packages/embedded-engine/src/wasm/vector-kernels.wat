;; SIMD kernels of SimpleVectorDb. Pointers are byte offsets into the imported (shared) memory.
;; Float rows are `stride` floats long (stride a multiple of 4, zero padded), 16-byte aligned, back
;; to back. Code rows (int8 quantisation, see code-segment.ts) are `codeStride` bytes: `codeBytes`
;; int8 codes (a multiple of 16, zero padded), then the row's f32 scale, then padding.
;; Regenerate the embedded binary with `pnpm --filter @km/embedded-engine gen:wasm` after editing this file.
(module
  (import "env" "memory" (memory 1 65536 shared))

  ;; Dot product of the query at $q with the row at $p, both $stride floats long. One accumulator,
  ;; 4 floats at a time in row order: the same sums, bit for bit, as dots gives the row.
  (func $dot (export "dot") (param $q i32) (param $p i32) (param $stride i32) (result f32)
    (local $end i32) (local $a v128)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $stride) (i32.const 2))))
    (block $done
      (loop $k
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $a (f32x4.add (local.get $a) (f32x4.mul (v128.load (local.get $p)) (v128.load (local.get $q)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br $k)))
    (call $hsum (local.get $a)))

  ;; out[r] = dot(query, row r) for the $n rows starting at $rows. The rows are split in four equal
  ;; parts scored side by side (row i of each part per step: four DRAM streams at once, and each
  ;; query load serves four rows); the last $n % 4 rows go through $dot.
  (func (export "dots") (param $q i32) (param $rows i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $rowBytes i32) (local $part i32) (local $partBytes i32) (local $end i32) (local $x i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32) (local $qv v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (local.set $part (i32.shr_u (local.get $n) (i32.const 2)))
    (local.set $partBytes (i32.mul (local.get $part) (local.get $rowBytes)))
    (local.set $end (i32.add (local.get $rows) (local.get $partBytes)))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.ge_u (local.get $rows) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $p0 (local.get $rows))
        (local.set $p1 (i32.add (local.get $p0) (local.get $partBytes)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $partBytes)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $partBytes)))
        (local.set $x (local.get $q))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        ;; 8 floats of each of the four rows per iteration
        (block $k_done
          (loop $k
            (br_if $k_done (i32.gt_u (i32.add (local.get $p0) (i32.const 32)) (local.get $rows)))
            (local.set $qv (v128.load offset=0 (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=0 (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=0 (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=0 (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=0 (local.get $p3)) (local.get $qv))))
            (local.set $qv (v128.load offset=16 (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=16 (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=16 (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=16 (local.get $p3)) (local.get $qv))))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 32)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 32)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 32)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 32)))
            (local.set $x (i32.add (local.get $x) (i32.const 32)))
            (br $k)))
        ;; a last group of 4 floats when the stride is not a multiple of 8
        (if (i32.lt_u (local.get $p0) (local.get $rows))
          (then
            (local.set $qv (v128.load (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load (local.get $p3)) (local.get $qv))))))
        (f32.store offset=0 (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 0))) (call $hsum (local.get $a0)))
        (f32.store offset=0 (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 4))) (call $hsum (local.get $a1)))
        (f32.store offset=0 (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 8))) (call $hsum (local.get $a2)))
        (f32.store offset=0 (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 12))) (call $hsum (local.get $a3)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row)))
    ;; the last $n % 4 rows, after the four parts
    (local.set $out (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 12))))
    (local.set $rows (i32.add (local.get $rows) (i32.mul (local.get $partBytes) (i32.const 3))))
    (local.set $part (i32.shl (local.get $part) (i32.const 2)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $part) (local.get $n)))
        (f32.store (local.get $out) (call $dot (local.get $q) (local.get $rows) (local.get $stride)))
        (local.set $rows (i32.add (local.get $rows) (local.get $rowBytes)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $part (i32.add (local.get $part) (i32.const 1)))
        (br $next))))

  ;; out[i] = dot(query, row list[i]) for the $n row numbers (i32) at $list, rows starting at $rows:
  ;; the neighbours of a graph node scored in one call. Eight listed rows per step (eight memory
  ;; streams at once, one query load per eight rows), then four, each row summed as dot sums it,
  ;; so the scores are the ones a scan gives those rows, bit for bit; the last $n % 4 rows go
  ;; through $dot.
  (func (export "dotsAt") (param $q i32) (param $rows i32) (param $list i32) (param $n i32) (param $stride i32) (param $out i32)
    (local $rowBytes i32) (local $i i32) (local $end i32) (local $x i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32) (local $p4 i32) (local $p5 i32) (local $p6 i32) (local $p7 i32) (local $qv v128)
    (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $a4 v128) (local $a5 v128) (local $a6 v128) (local $a7 v128)
    (local.set $rowBytes (i32.shl (local.get $stride) (i32.const 2)))
    (block $eights_done
      (loop $eights
        (br_if $eights_done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (local.set $p0 (i32.add (local.get $rows) (i32.mul (i32.load offset=0 (local.get $list)) (local.get $rowBytes))))
        (local.set $p1 (i32.add (local.get $rows) (i32.mul (i32.load offset=4 (local.get $list)) (local.get $rowBytes))))
        (local.set $p2 (i32.add (local.get $rows) (i32.mul (i32.load offset=8 (local.get $list)) (local.get $rowBytes))))
        (local.set $p3 (i32.add (local.get $rows) (i32.mul (i32.load offset=12 (local.get $list)) (local.get $rowBytes))))
        (local.set $p4 (i32.add (local.get $rows) (i32.mul (i32.load offset=16 (local.get $list)) (local.get $rowBytes))))
        (local.set $p5 (i32.add (local.get $rows) (i32.mul (i32.load offset=20 (local.get $list)) (local.get $rowBytes))))
        (local.set $p6 (i32.add (local.get $rows) (i32.mul (i32.load offset=24 (local.get $list)) (local.get $rowBytes))))
        (local.set $p7 (i32.add (local.get $rows) (i32.mul (i32.load offset=28 (local.get $list)) (local.get $rowBytes))))
        (local.set $end (i32.add (local.get $p0) (local.get $rowBytes)))
        (local.set $x (local.get $q))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $a4 (v128.const i32x4 0 0 0 0))
        (local.set $a5 (v128.const i32x4 0 0 0 0))
        (local.set $a6 (v128.const i32x4 0 0 0 0))
        (local.set $a7 (v128.const i32x4 0 0 0 0))
        (block $eights_k_done
          (loop $eights_k
            (br_if $eights_k_done (i32.gt_u (i32.add (local.get $p0) (i32.const 32)) (local.get $end)))
            (local.set $qv (v128.load offset=0 (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=0 (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=0 (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=0 (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=0 (local.get $p3)) (local.get $qv))))
            (local.set $a4 (f32x4.add (local.get $a4) (f32x4.mul (v128.load offset=0 (local.get $p4)) (local.get $qv))))
            (local.set $a5 (f32x4.add (local.get $a5) (f32x4.mul (v128.load offset=0 (local.get $p5)) (local.get $qv))))
            (local.set $a6 (f32x4.add (local.get $a6) (f32x4.mul (v128.load offset=0 (local.get $p6)) (local.get $qv))))
            (local.set $a7 (f32x4.add (local.get $a7) (f32x4.mul (v128.load offset=0 (local.get $p7)) (local.get $qv))))
            (local.set $qv (v128.load offset=16 (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=16 (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=16 (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=16 (local.get $p3)) (local.get $qv))))
            (local.set $a4 (f32x4.add (local.get $a4) (f32x4.mul (v128.load offset=16 (local.get $p4)) (local.get $qv))))
            (local.set $a5 (f32x4.add (local.get $a5) (f32x4.mul (v128.load offset=16 (local.get $p5)) (local.get $qv))))
            (local.set $a6 (f32x4.add (local.get $a6) (f32x4.mul (v128.load offset=16 (local.get $p6)) (local.get $qv))))
            (local.set $a7 (f32x4.add (local.get $a7) (f32x4.mul (v128.load offset=16 (local.get $p7)) (local.get $qv))))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 32)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 32)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 32)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 32)))
            (local.set $p4 (i32.add (local.get $p4) (i32.const 32)))
            (local.set $p5 (i32.add (local.get $p5) (i32.const 32)))
            (local.set $p6 (i32.add (local.get $p6) (i32.const 32)))
            (local.set $p7 (i32.add (local.get $p7) (i32.const 32)))
            (local.set $x (i32.add (local.get $x) (i32.const 32)))
            (br $eights_k)))
        (if (i32.lt_u (local.get $p0) (local.get $end))
          (then
            (local.set $qv (v128.load (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load (local.get $p3)) (local.get $qv))))
            (local.set $a4 (f32x4.add (local.get $a4) (f32x4.mul (v128.load (local.get $p4)) (local.get $qv))))
            (local.set $a5 (f32x4.add (local.get $a5) (f32x4.mul (v128.load (local.get $p5)) (local.get $qv))))
            (local.set $a6 (f32x4.add (local.get $a6) (f32x4.mul (v128.load (local.get $p6)) (local.get $qv))))
            (local.set $a7 (f32x4.add (local.get $a7) (f32x4.mul (v128.load (local.get $p7)) (local.get $qv))))))
        (f32.store offset=0 (local.get $out) (call $hsum (local.get $a0)))
        (f32.store offset=4 (local.get $out) (call $hsum (local.get $a1)))
        (f32.store offset=8 (local.get $out) (call $hsum (local.get $a2)))
        (f32.store offset=12 (local.get $out) (call $hsum (local.get $a3)))
        (f32.store offset=16 (local.get $out) (call $hsum (local.get $a4)))
        (f32.store offset=20 (local.get $out) (call $hsum (local.get $a5)))
        (f32.store offset=24 (local.get $out) (call $hsum (local.get $a6)))
        (f32.store offset=28 (local.get $out) (call $hsum (local.get $a7)))
        (local.set $list (i32.add (local.get $list) (i32.const 32)))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $eights)))
    (block $fours_done
      (loop $fours
        (br_if $fours_done (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (local.set $p0 (i32.add (local.get $rows) (i32.mul (i32.load offset=0 (local.get $list)) (local.get $rowBytes))))
        (local.set $p1 (i32.add (local.get $rows) (i32.mul (i32.load offset=4 (local.get $list)) (local.get $rowBytes))))
        (local.set $p2 (i32.add (local.get $rows) (i32.mul (i32.load offset=8 (local.get $list)) (local.get $rowBytes))))
        (local.set $p3 (i32.add (local.get $rows) (i32.mul (i32.load offset=12 (local.get $list)) (local.get $rowBytes))))
        (local.set $end (i32.add (local.get $p0) (local.get $rowBytes)))
        (local.set $x (local.get $q))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (block $fours_k_done
          (loop $fours_k
            (br_if $fours_k_done (i32.gt_u (i32.add (local.get $p0) (i32.const 32)) (local.get $end)))
            (local.set $qv (v128.load offset=0 (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=0 (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=0 (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=0 (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=0 (local.get $p3)) (local.get $qv))))
            (local.set $qv (v128.load offset=16 (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load offset=16 (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load offset=16 (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load offset=16 (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load offset=16 (local.get $p3)) (local.get $qv))))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 32)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 32)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 32)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 32)))
            (local.set $x (i32.add (local.get $x) (i32.const 32)))
            (br $fours_k)))
        (if (i32.lt_u (local.get $p0) (local.get $end))
          (then
            (local.set $qv (v128.load (local.get $x)))
            (local.set $a0 (f32x4.add (local.get $a0) (f32x4.mul (v128.load (local.get $p0)) (local.get $qv))))
            (local.set $a1 (f32x4.add (local.get $a1) (f32x4.mul (v128.load (local.get $p1)) (local.get $qv))))
            (local.set $a2 (f32x4.add (local.get $a2) (f32x4.mul (v128.load (local.get $p2)) (local.get $qv))))
            (local.set $a3 (f32x4.add (local.get $a3) (f32x4.mul (v128.load (local.get $p3)) (local.get $qv))))))
        (f32.store offset=0 (local.get $out) (call $hsum (local.get $a0)))
        (f32.store offset=4 (local.get $out) (call $hsum (local.get $a1)))
        (f32.store offset=8 (local.get $out) (call $hsum (local.get $a2)))
        (f32.store offset=12 (local.get $out) (call $hsum (local.get $a3)))
        (local.set $list (i32.add (local.get $list) (i32.const 16)))
        (local.set $out (i32.add (local.get $out) (i32.const 16)))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $fours)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (f32.store (local.get $out)
          (call $dot (local.get $q) (i32.add (local.get $rows) (i32.mul (i32.load (local.get $list)) (local.get $rowBytes))) (local.get $stride)))
        (local.set $list (i32.add (local.get $list) (i32.const 4)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  ;; Approximate scores of int8 code rows: out[r] = (int16 query . int8 codes of row r) * $qscale *
  ;; scale of row r, for the $n code rows starting at $codes. The query at $q is $codeBytes int16
  ;; values. Four parts side by side, as in dots; 16 codes of each row per step.
  (func $codeDot (param $q i32) (param $p i32) (param $codeBytes i32) (result i32)
    (local $end i32) (local $v v128) (local $a v128) (local $b v128)
    (local.set $end (i32.add (local.get $p) (local.get $codeBytes)))
    (block $done
      (loop $k
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $a (i32x4.add (local.get $a) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (v128.load (local.get $q)))))
        (local.set $b (i32x4.add (local.get $b) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (v128.load offset=16 (local.get $q)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (local.set $q (i32.add (local.get $q) (i32.const 32)))
        (br $k)))
    (call $ihsum (i32x4.add (local.get $a) (local.get $b))))

  (func (export "codeDots") (param $q i32) (param $codes i32) (param $n i32) (param $codeStride i32) (param $codeBytes i32) (param $qscale f32) (param $out i32)
    (local $part i32) (local $partBytes i32) (local $end i32) (local $qEnd i32) (local $x i32)
    (local $p0 i32) (local $p1 i32) (local $p2 i32) (local $p3 i32) (local $qv v128) (local $qw v128) (local $v v128) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128) (local $b0 v128) (local $b1 v128) (local $b2 v128) (local $b3 v128)
    (local.set $qEnd (i32.add (local.get $q) (i32.shl (local.get $codeBytes) (i32.const 1))))
    (local.set $part (i32.shr_u (local.get $n) (i32.const 2)))
    (local.set $partBytes (i32.mul (local.get $part) (local.get $codeStride)))
    (local.set $end (i32.add (local.get $codes) (local.get $partBytes)))
    (block $rows_done
      (loop $row
        (br_if $rows_done (i32.ge_u (local.get $codes) (local.get $end)))
        (local.set $a0 (v128.const i32x4 0 0 0 0))
        (local.set $a1 (v128.const i32x4 0 0 0 0))
        (local.set $a2 (v128.const i32x4 0 0 0 0))
        (local.set $a3 (v128.const i32x4 0 0 0 0))
        (local.set $b0 (v128.const i32x4 0 0 0 0))
        (local.set $b1 (v128.const i32x4 0 0 0 0))
        (local.set $b2 (v128.const i32x4 0 0 0 0))
        (local.set $b3 (v128.const i32x4 0 0 0 0))
        (local.set $p0 (local.get $codes))
        (local.set $p1 (i32.add (local.get $p0) (local.get $partBytes)))
        (local.set $p2 (i32.add (local.get $p1) (local.get $partBytes)))
        (local.set $p3 (i32.add (local.get $p2) (local.get $partBytes)))
        (local.set $x (local.get $q))
        (local.set $codes (i32.add (local.get $codes) (local.get $codeStride)))
        (block $k_done
          (loop $k
            (br_if $k_done (i32.ge_u (local.get $x) (local.get $qEnd)))
            (local.set $qv (v128.load (local.get $x)))
            (local.set $qw (v128.load offset=16 (local.get $x)))
            (local.set $v (v128.load (local.get $p0)))
            (local.set $a0 (i32x4.add (local.get $a0) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qv))))
            (local.set $b0 (i32x4.add (local.get $b0) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qw))))
            (local.set $v (v128.load (local.get $p1)))
            (local.set $a1 (i32x4.add (local.get $a1) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qv))))
            (local.set $b1 (i32x4.add (local.get $b1) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qw))))
            (local.set $v (v128.load (local.get $p2)))
            (local.set $a2 (i32x4.add (local.get $a2) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qv))))
            (local.set $b2 (i32x4.add (local.get $b2) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qw))))
            (local.set $v (v128.load (local.get $p3)))
            (local.set $a3 (i32x4.add (local.get $a3) (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $v)) (local.get $qv))))
            (local.set $b3 (i32x4.add (local.get $b3) (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $v)) (local.get $qw))))
            (local.set $p0 (i32.add (local.get $p0) (i32.const 16)))
            (local.set $p1 (i32.add (local.get $p1) (i32.const 16)))
            (local.set $p2 (i32.add (local.get $p2) (i32.const 16)))
            (local.set $p3 (i32.add (local.get $p3) (i32.const 16)))
            (local.set $x (i32.add (local.get $x) (i32.const 32)))
            (br $k)))
        ;; $p0..$p3 now point at each row's scale
        (f32.store (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 0)))
          (f32.mul (f32.convert_i32_s (call $ihsum (i32x4.add (local.get $a0) (local.get $b0))))
                   (f32.mul (local.get $qscale) (f32.load (local.get $p0)))))
        (f32.store (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 4)))
          (f32.mul (f32.convert_i32_s (call $ihsum (i32x4.add (local.get $a1) (local.get $b1))))
                   (f32.mul (local.get $qscale) (f32.load (local.get $p1)))))
        (f32.store (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 8)))
          (f32.mul (f32.convert_i32_s (call $ihsum (i32x4.add (local.get $a2) (local.get $b2))))
                   (f32.mul (local.get $qscale) (f32.load (local.get $p2)))))
        (f32.store (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 12)))
          (f32.mul (f32.convert_i32_s (call $ihsum (i32x4.add (local.get $a3) (local.get $b3))))
                   (f32.mul (local.get $qscale) (f32.load (local.get $p3)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br $row)))
    (local.set $out (i32.add (local.get $out) (i32.mul (local.get $part) (i32.const 12))))
    (local.set $codes (i32.add (local.get $codes) (i32.mul (local.get $partBytes) (i32.const 3))))
    (local.set $part (i32.shl (local.get $part) (i32.const 2)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $part) (local.get $n)))
        (f32.store (local.get $out)
          (f32.mul (f32.convert_i32_s (call $codeDot (local.get $q) (local.get $codes) (local.get $codeBytes)))
                   (f32.mul (local.get $qscale) (f32.load (i32.add (local.get $codes) (local.get $codeBytes))))))
        (local.set $codes (i32.add (local.get $codes) (local.get $codeStride)))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $part (i32.add (local.get $part) (i32.const 1)))
        (br $next))))

  ;; Divides the $n floats at $p by $norm in place, each as f32(f64(x) / norm): what JavaScript
  ;; stores for `x / norm` in a Float32Array, bit for bit. Four floats per step (two f64x2
  ;; divisions, each lane the same IEEE division as the scalar one), then the rest one by one.
  (func (export "normalise") (param $p i32) (param $n i32) (param $norm f64)
    (local $end i32) (local $end4 i32) (local $d v128) (local $v v128)
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 2))))
    (local.set $end4 (i32.add (local.get $p) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 2))))
    (local.set $d (f64x2.splat (local.get $norm)))
    (block $simd_done
      (loop $simd
        (br_if $simd_done (i32.ge_u (local.get $p) (local.get $end4)))
        (local.set $v (v128.load (local.get $p)))
        (v128.store (local.get $p)
          (i8x16.shuffle 0 1 2 3 4 5 6 7 16 17 18 19 20 21 22 23
            (f32x4.demote_f64x2_zero (f64x2.div (f64x2.promote_low_f32x4 (local.get $v)) (local.get $d)))
            (f32x4.demote_f64x2_zero
              (f64x2.div
                (f64x2.promote_low_f32x4 (i8x16.shuffle 8 9 10 11 12 13 14 15 0 1 2 3 4 5 6 7 (local.get $v) (local.get $v)))
                (local.get $d)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $simd)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (f32.store (local.get $p) (f32.demote_f64 (f64.div (f64.promote_f32 (f32.load (local.get $p))) (local.get $norm))))
        (local.set $p (i32.add (local.get $p) (i32.const 4)))
        (br $next))))

  ;; The int8 codes of the $n floats at $src (see int8-codes.ts): writes floor(x * inv + 0.5)
  ;; clamped to [-127, 127] at $dst, with scale = f32(max|x| / 127) and inv = f32(1 / scale), every
  ;; step in float32 as encodeRow computes it; returns the scale (0, and zero codes, for a zero
  ;; vector). SIMD over 4 floats (the maximum) and 16 codes, then the rest one by one.
  (func (export "encodeCodes") (param $src i32) (param $dst i32) (param $n i32) (result f32)
    (local $i i32) (local $max f32) (local $scale f32) (local $inv f32) (local $c f32) (local $m v128) (local $s v128) (local $at i32)
    (local $w0 v128) (local $w1 v128) (local $w2 v128) (local $w3 v128) (local $half v128)
    (block $max4_done
      (loop $max4_next
        (br_if $max4_done (i32.gt_u (i32.add (local.get $i) (i32.const 4)) (local.get $n)))
        (local.set $m (f32x4.max (local.get $m) (f32x4.abs (v128.load (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 4)))
        (br $max4_next)))
    (local.set $max
      (f32.max
        (f32.max (f32x4.extract_lane 0 (local.get $m)) (f32x4.extract_lane 1 (local.get $m)))
        (f32.max (f32x4.extract_lane 2 (local.get $m)) (f32x4.extract_lane 3 (local.get $m)))))
    (block $max_done
      (loop $max_next
        (br_if $max_done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $max (f32.max (local.get $max) (f32.abs (f32.load (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $max_next)))
    (local.set $scale (f32.demote_f64 (f64.div (f64.promote_f32 (local.get $max)) (f64.const 127))))
    (local.set $i (i32.const 0))
    (if (f32.gt (local.get $scale) (f32.const 0))
      (then
        (local.set $inv (f32.div (f32.const 1) (local.get $scale)))
        (local.set $s (f32x4.splat (local.get $inv)))
        (local.set $half (f32x4.splat (f32.const 0.5)))
        (block $codes16_done
          (loop $codes16_next
            (br_if $codes16_done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $n)))
            (local.set $at (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2))))
            (local.set $w0 (i32x4.trunc_sat_f32x4_s (f32x4.floor (f32x4.add (f32x4.mul (v128.load offset=0 (local.get $at)) (local.get $s)) (local.get $half)))))
            (local.set $w1 (i32x4.trunc_sat_f32x4_s (f32x4.floor (f32x4.add (f32x4.mul (v128.load offset=16 (local.get $at)) (local.get $s)) (local.get $half)))))
            (local.set $w2 (i32x4.trunc_sat_f32x4_s (f32x4.floor (f32x4.add (f32x4.mul (v128.load offset=32 (local.get $at)) (local.get $s)) (local.get $half)))))
            (local.set $w3 (i32x4.trunc_sat_f32x4_s (f32x4.floor (f32x4.add (f32x4.mul (v128.load offset=48 (local.get $at)) (local.get $s)) (local.get $half)))))
            ;; narrowing saturates at 127; -128 is lifted to -127
            (v128.store (i32.add (local.get $dst) (local.get $i))
              (i8x16.max_s
                (i8x16.narrow_i16x8_s
                  (i16x8.narrow_i32x4_s (local.get $w0) (local.get $w1))
                  (i16x8.narrow_i32x4_s (local.get $w2) (local.get $w3)))
                (i8x16.splat (i32.const -127))))
            (local.set $i (i32.add (local.get $i) (i32.const 16)))
            (br $codes16_next)))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (f32.const 0))
        (if (f32.gt (local.get $scale) (f32.const 0))
          (then
            (local.set $c (f32.floor (f32.add (f32.mul (f32.load (i32.add (local.get $src) (i32.shl (local.get $i) (i32.const 2)))) (local.get $inv)) (f32.const 0.5))))
            (local.set $c (f32.min (f32.const 127) (f32.max (f32.const -127) (local.get $c))))))
        (i32.store8 (i32.add (local.get $dst) (local.get $i)) (i32.trunc_f32_s (local.get $c)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $scale))

  ;; Faults in the pages of [$start, $end) ahead of the thread that will write them: an atomic
  ;; add of 0 to one word per 4 KiB page, which leaves any value written meanwhile as it is.
  (func (export "touch") (param $start i32) (param $end i32)
    (local.set $start (i32.and (local.get $start) (i32.const -4)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $start) (local.get $end)))
        (drop (i32.atomic.rmw.add (local.get $start) (i32.const 0)))
        (local.set $start (i32.add (local.get $start) (i32.const 4096)))
        (br $next))))

  ;; Sum of the four lanes of a vector.
  (func $hsum (param $v v128) (result f32)
    (f32.add
      (f32.add (f32x4.extract_lane 0 (local.get $v)) (f32x4.extract_lane 1 (local.get $v)))
      (f32.add (f32x4.extract_lane 2 (local.get $v)) (f32x4.extract_lane 3 (local.get $v)))))

  ;; Sum of the four i32 lanes of a vector.
  (func $ihsum (param $v v128) (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $v)) (i32x4.extract_lane 1 (local.get $v)))
      (i32.add (i32x4.extract_lane 2 (local.get $v)) (i32x4.extract_lane 3 (local.get $v)))))
)
