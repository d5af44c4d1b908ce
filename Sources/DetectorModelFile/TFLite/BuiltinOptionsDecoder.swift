import DetectorZlib
/// Decodes a `builtin_options` table into typed options, by its union tag. Field slots follow the
/// declaration order of each table in schema v3.
enum BuiltinOptionsDecoder {
    static func padding(_ t: FlatBufferTable, _ slot: Int, _ location: @autoclosure () -> String) throws -> TFLitePadding {
        let raw = try t.scalar(slot, default: UInt8(0))
        guard let p = TFLitePadding(rawValue: raw) else {
            throw TFLiteModelError.invalidValue(what: "padding", location: location(), reason: "\(raw) is not SAME or VALID")
        }
        return p
    }

    static func activation(_ t: FlatBufferTable, _ slot: Int, _ location: @autoclosure () -> String) throws -> TFLiteActivation {
        let raw = try t.scalar(slot, default: UInt8(0))
        guard let a = TFLiteActivation(rawValue: raw) else {
            throw TFLiteModelError.invalidValue(what: "fused activation", location: location(), reason: "\(raw) is not an ActivationFunctionType")
        }
        return a
    }

    static func int(_ t: FlatBufferTable, _ slot: Int, _ value: Int32 = 0) throws -> Int {
        Int(try t.scalar(slot, default: value))
    }

    static func decode(type: UInt8, table t: FlatBufferTable, location: @autoclosure () -> String) throws -> BuiltinOptions {
        typealias T = BuiltinOptionsType
        switch type {
        case T.conv2D:
            var o = Conv2DOptions()
            o.padding = try padding(t, 0, location())
            o.strideWidth = try int(t, 1)
            o.strideHeight = try int(t, 2)
            o.activation = try activation(t, 3, location())
            o.dilationWidthFactor = try int(t, 4, 1)
            o.dilationHeightFactor = try int(t, 5, 1)
            o.quantizedBiasType = try t.scalar(6, default: Int8(0))
            return .conv2D(o)
        case T.depthwiseConv2D:
            var o = DepthwiseConv2DOptions()
            o.padding = try padding(t, 0, location())
            o.strideWidth = try int(t, 1)
            o.strideHeight = try int(t, 2)
            o.depthMultiplier = try int(t, 3)
            o.activation = try activation(t, 4, location())
            o.dilationWidthFactor = try int(t, 5, 1)
            o.dilationHeightFactor = try int(t, 6, 1)
            return .depthwiseConv2D(o)
        case T.pool2D:
            var o = Pool2DOptions()
            o.padding = try padding(t, 0, location())
            o.strideWidth = try int(t, 1)
            o.strideHeight = try int(t, 2)
            o.filterWidth = try int(t, 3)
            o.filterHeight = try int(t, 4)
            o.activation = try activation(t, 5, location())
            return .pool2D(o)
        case T.fullyConnected:
            var o = FullyConnectedOptions()
            o.activation = try activation(t, 0, location())
            o.weightsFormat = try t.scalar(1, default: UInt8(0))
            o.keepNumDims = try t.bool(2, default: false)
            o.asymmetricQuantizeInputs = try t.bool(3, default: false)
            o.quantizedBiasType = try t.scalar(4, default: Int8(0))
            return .fullyConnected(o)
        case T.softmax:
            var o = SoftmaxOptions()
            o.beta = try t.float(0, default: 0)
            return .softmax(o)
        case T.concatenation:
            var o = ConcatenationOptions()
            o.axis = try int(t, 0)
            o.activation = try activation(t, 1, location())
            return .concatenation(o)
        case T.add, T.sub:
            var o = ArithmeticOptions()
            o.activation = try activation(t, 0, location())
            o.potScaleInt16 = try t.bool(1, default: true)
            return type == T.add ? .add(o) : .sub(o)
        case T.mul, T.div:
            var o = ArithmeticOptions()
            o.activation = try activation(t, 0, location())
            return type == T.mul ? .mul(o) : .div(o)
        case T.l2Norm:
            return .l2Norm(activation: try activation(t, 0, location()))
        case T.localResponseNormalization:
            var o = LocalResponseNormalizationOptions()
            o.radius = try int(t, 0)
            o.bias = try t.float(1, default: 0)
            o.alpha = try t.float(2, default: 0)
            o.beta = try t.float(3, default: 0)
            return .localResponseNormalization(o)
        case T.resizeBilinear:
            // Slots 0 and 1 are the deprecated new_height / new_width.
            var o = ResizeOptions()
            o.alignCorners = try t.bool(2, default: false)
            o.halfPixelCenters = try t.bool(3, default: false)
            return .resizeBilinear(o)
        case T.resizeNearestNeighbor:
            var o = ResizeOptions()
            o.alignCorners = try t.bool(0, default: false)
            o.halfPixelCenters = try t.bool(1, default: false)
            return .resizeNearestNeighbor(o)
        case T.reshape:
            var o = ReshapeOptions()
            o.newShape = try t.int32s(0)
            return .reshape(o)
        case T.spaceToDepth, T.depthToSpace:
            var o = BlockSizeOptions()
            o.blockSize = try int(t, 0)
            return type == T.spaceToDepth ? .spaceToDepth(o) : .depthToSpace(o)
        case T.gather:
            var o = GatherOptions()
            o.axis = try int(t, 0)
            o.batchDims = try int(t, 1)
            return .gather(o)
        case T.reducer:
            var o = ReducerOptions()
            o.keepDims = try t.bool(0, default: false)
            return .reducer(o)
        case T.squeeze:
            var o = SqueezeOptions()
            o.squeezeDims = try t.int32s(0) ?? []
            return .squeeze(o)
        case T.stridedSlice:
            var o = StridedSliceOptions()
            o.beginMask = try int(t, 0)
            o.endMask = try int(t, 1)
            o.ellipsisMask = try int(t, 2)
            o.newAxisMask = try int(t, 3)
            o.shrinkAxisMask = try int(t, 4)
            o.offset = try t.bool(5, default: false)
            return .stridedSlice(o)
        case T.split, T.splitV:
            var o = SplitOptions()
            o.numSplits = try int(t, 0)
            return type == T.split ? .split(o) : .splitV(o)
        case T.cast:
            var o = CastOptions()
            o.inDataType = try t.scalar(0, default: Int8(0))
            o.outDataType = try t.scalar(1, default: Int8(0))
            return .cast(o)
        case T.argMax, T.argMin, T.shape:
            var o = OutputTypeOptions()
            o.outputType = try t.scalar(0, default: Int8(0))
            return type == T.argMax ? .argMax(o) : type == T.argMin ? .argMin(o) : .shape(o)
        case T.transposeConv:
            var o = TransposeConvOptions()
            o.padding = try padding(t, 0, location())
            o.strideWidth = try int(t, 1)
            o.strideHeight = try int(t, 2)
            o.activation = try activation(t, 3, location())
            o.quantizedBiasType = try t.scalar(4, default: Int8(0))
            return .transposeConv(o)
        case T.pack:
            var o = PackOptions()
            o.valuesCount = try int(t, 0)
            o.axis = try int(t, 1)
            return .pack(o)
        case T.unpack:
            var o = UnpackOptions()
            o.num = try int(t, 0)
            o.axis = try int(t, 1)
            return .unpack(o)
        case T.leakyRelu:
            var o = LeakyReluOptions()
            o.alpha = try t.float(0, default: 0)
            return .leakyRelu(o)
        case T.mirrorPad:
            var o = MirrorPadOptions()
            o.mode = try t.scalar(0, default: UInt8(0))
            return .mirrorPad(o)
        case T.batchMatMul:
            var o = BatchMatMulOptions()
            o.adjointX = try t.bool(0, default: false)
            o.adjointY = try t.bool(1, default: false)
            o.asymmetricQuantizeInputs = try t.bool(2, default: false)
            return .batchMatMul(o)
        case T.gelu:
            var o = GeluOptions()
            o.approximate = try t.bool(0, default: false)
            return .gelu(o)
        default:
            return .other(unionType: type)
        }
    }
}
