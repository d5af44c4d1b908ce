extension KernelRegistry {
    /// Float32 kernels, hybrid (float activations, int8 weights) kernels and type-agnostic
    /// data-movement kernels. Quantized kernels live in `quantizedRegistrations`.
    static let floatRegistrations: [KernelRegistration] = [
        KernelRegistration("ADD", types: AddKernel.types, prepare: AddKernel.prepare),
        KernelRegistration("SUB", types: SubKernel.types, prepare: SubKernel.prepare),
        KernelRegistration("MUL", types: MulKernel.types, prepare: MulKernel.prepare),
        KernelRegistration("DIV", types: DivKernel.types, prepare: DivKernel.prepare),
        KernelRegistration("MAXIMUM", types: MaximumKernel.types, prepare: MaximumKernel.prepare),
        KernelRegistration("MINIMUM", types: MinimumKernel.types, prepare: MinimumKernel.prepare),
        KernelRegistration("FLOOR_MOD", types: FloorModKernel.types, prepare: FloorModKernel.prepare),
        KernelRegistration("FLOOR_DIV", types: FloorDivKernel.types, prepare: FloorDivKernel.prepare),
        KernelRegistration("SQUARED_DIFFERENCE", types: SquaredDifferenceKernel.types, prepare: SquaredDifferenceKernel.prepare),
        KernelRegistration("PRELU", types: PReluKernel.types, prepare: PReluKernel.prepare),
        KernelRegistration("RELU", types: [.float32], prepare: ReluKernel.prepare),
        KernelRegistration("RELU6", types: [.float32], prepare: Relu6Kernel.prepare),
        KernelRegistration("RELU_N1_TO_1", types: [.float32], prepare: ReluN1To1Kernel.prepare),
        KernelRegistration("LEAKY_RELU", types: [.float32], prepare: LeakyReluKernel.prepare),
        KernelRegistration("LOGISTIC", types: [.float32], prepare: LogisticKernel.prepare),
        KernelRegistration("TANH", types: [.float32], prepare: TanhKernel.prepare),
        KernelRegistration("HARD_SWISH", types: [.float32], prepare: HardSwishKernel.prepare),
        KernelRegistration("RESHAPE", prepare: ReshapeKernel.prepare),
        KernelRegistration("SQUEEZE", prepare: SqueezeKernel.prepare),
        KernelRegistration("EXPAND_DIMS", prepare: ExpandDimsKernel.prepare),
    ]
}
