/// DEQUANTIZE of uint8/int8 to float32: `Float(Double(scale) * Double(q - zeroPoint))`, the
/// reference kernel's double-precision product rounded once.
public enum QuantizedDequantize {
    public static func run<T: QuantizedElement>(input: UnsafePointer<T>, output: UnsafeMutablePointer<Float>,
                                                count: Int, quantization q: QuantizationParams) {
        let scale = Double(q.scale)
        for i in 0..<count { output[i] = Float(scale * Double(Int32(input[i]) - q.zeroPoint)) }
    }
}
