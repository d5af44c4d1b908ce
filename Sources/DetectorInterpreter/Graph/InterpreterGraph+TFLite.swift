import DetectorModelFile
import DetectorPlatform
import Foundation

extension InterpreterGraph {
    /// The interpreter's view of subgraph 0 of a parsed model: tensors with constant data as
    /// zero-copy ranges of the model bytes, operators with their options flattened.
    public init(model: TFLiteModel) throws {
        let sg = model.mainSubgraph
        var tensors: [GraphTensor] = []
        tensors.reserveCapacity(sg.tensors.count)
        for t in sg.tensors {
            let type = t.type
            var constant: GraphTensor.ConstantData? = nil
            if t.bufferIndex > 0, t.bufferIndex < model.buffers.count, let r = model.buffers[t.bufferIndex].range, r.count > 0 {
                constant = .model(offset: r.offset, count: r.count)
            }
            var q: TensorQuantization? = nil
            if let tq = t.quantization, tq.isAffine {
                q = TensorQuantization(scales: tq.scales, zeroPoints: tq.zeroPoints, quantizedDimension: tq.quantizedDimension)
            }
            var sparsity: GraphTensor.Sparsity? = nil
            if let s = t.sparsity {
                sparsity = GraphTensor.Sparsity(
                    traversalOrder: s.traversalOrder, blockMap: s.blockMap,
                    dimensions: s.dimensionMetadata.map { d in
                        d.format == .dense ? .dense(size: d.denseSize)
                            : .sparseCSR(segments: d.arraySegments?.values ?? [], indices: d.arrayIndices?.values ?? [])
                    })
            }
            tensors.append(GraphTensor(name: t.name, type: type, shape: t.shape, shapeSignature: t.shapeSignature,
                                       quantization: q, constant: constant, sparsity: sparsity, isVariable: t.isVariable))
        }
        let operators = sg.operators.map { op in
            GraphOperator(code: op.code.builtinCode, customCode: op.code.isCustom ? op.code.customCode : nil,
                          version: op.code.version,
                          inputs: op.inputs, outputs: op.outputs,
                          parameters: OperatorParameters(op.builtinOptions),
                          customOptions: Array(model.customOptionsBytes(of: op)))
        }
        self.init(tensors: tensors, operators: operators, inputs: sg.inputs, outputs: sg.outputs,
                  modelBytes: ModelBytes(storage: model.storage))
    }
}

extension OperatorParameters {
    /// Flattens a model operator's typed builtin options.
    public init(_ options: BuiltinOptions) {
        self.init()
        func act(_ a: TFLiteActivation) -> Activation { Activation(rawValue: Int(a.rawValue)) ?? .none }
        func pad(_ p: TFLitePadding) -> Padding { p == .valid ? .valid : .same }
        switch options {
        case .conv2D(let o):
            padding = pad(o.padding); strideWidth = o.strideWidth; strideHeight = o.strideHeight
            dilationWidthFactor = o.dilationWidthFactor; dilationHeightFactor = o.dilationHeightFactor
            activation = act(o.activation)
        case .depthwiseConv2D(let o):
            padding = pad(o.padding); strideWidth = o.strideWidth; strideHeight = o.strideHeight
            dilationWidthFactor = o.dilationWidthFactor; dilationHeightFactor = o.dilationHeightFactor
            depthMultiplier = o.depthMultiplier; activation = act(o.activation)
        case .pool2D(let o):
            padding = pad(o.padding); strideWidth = o.strideWidth; strideHeight = o.strideHeight
            filterWidth = o.filterWidth; filterHeight = o.filterHeight; activation = act(o.activation)
        case .fullyConnected(let o):
            activation = act(o.activation); keepNumDims = o.keepNumDims
            asymmetricQuantizeInputs = o.asymmetricQuantizeInputs; weightsFormat = Int(o.weightsFormat)
        case .softmax(let o): beta = o.beta
        case .concatenation(let o): axis = o.axis; activation = act(o.activation)
        case .add(let o), .sub(let o), .mul(let o), .div(let o): activation = act(o.activation)
        case .l2Norm(let a): activation = act(a)
        case .reshape(let o): newShape = o.newShape
        case .resizeBilinear(let o), .resizeNearestNeighbor(let o):
            alignCorners = o.alignCorners; halfPixelCenters = o.halfPixelCenters
        case .stridedSlice(let o):
            beginMask = o.beginMask; endMask = o.endMask; ellipsisMask = o.ellipsisMask
            newAxisMask = o.newAxisMask; shrinkAxisMask = o.shrinkAxisMask; offset = o.offset
        case .reducer(let o): keepDims = o.keepDims
        case .squeeze(let o): squeezeDims = o.squeezeDims
        case .depthToSpace(let o), .spaceToDepth(let o): blockSize = o.blockSize
        case .gather(let o): axis = o.axis; batchDims = o.batchDims
        case .split(let o), .splitV(let o): numSplits = o.numSplits
        case .pack(let o): valuesCount = o.valuesCount; axis = o.axis
        case .unpack(let o): valuesCount = o.num; axis = o.axis
        case .leakyRelu(let o): alpha = o.alpha
        case .cast(let o):
            castInType = TensorDataType(rawValue: Int(o.inDataType)); castOutType = TensorDataType(rawValue: Int(o.outDataType))
        default: break
        }
    }
}

extension Interpreter {
    /// Opens a `.tflite` file (memory-mapped; constant tensors stay views of the file) and prepares it.
    ///
    /// ```swift
    /// let interpreter = try Interpreter(contentsOfFile: "model.tflite", options: .init(threadCount: 2))
    /// ```
    public convenience init(contentsOfFile path: String, options: Options = Options()) throws {
        try self.init(model: try TFLiteModel(contentsOfFile: path), options: options)
    }

    /// Reads a model from bytes in memory (copied once into aligned storage) and prepares it.
    public convenience init(modelData: Data, options: Options = Options()) throws {
        try self.init(model: try TFLiteModel(data: modelData), options: options)
    }

    /// Prepares an already parsed model.
    public convenience init(model: TFLiteModel, options: Options = Options()) throws {
        try self.init(graph: try InterpreterGraph(model: model), options: options)
    }
}
