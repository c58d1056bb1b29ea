"""A brain as one ONNX file, for game engines (Unity Sentis, Godot, onnxruntime in C#,
JS or C++): the normaliser, the layers and the masked argmax inside one graph.

Inputs `observation` float32 [N, D] (the flat vector the manifest's observation schema
lays out) and `action_mask` bool [N, A]; outputs `action` int64 [N] (the legal action
of highest logit), `logits` float32 [N, A] and `valid` bool [N]. A row whose mask
allows nothing, or whose observation holds a NaN or an infinity, is refused as the
numpy brain refuses it: `valid` false and `action` -1, never a legal-looking 0. The
graph follows `NumpyBrain.logits` step by step, in float32 throughout (no double
tensor: Unity Sentis runs none), with only operators Sentis lists (`SENTIS_OPERATORS`);
the model's metadata carries the brain's manifest as JSON under `duelo_manifest`.
Needs the `onnx` extra.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from duelo.agents.brain import NumpyBrain, load_brain

OPSET = 17
"""ONNX opset: Clip, Gemm, Where and ArgMax as Sentis and onnxruntime read them."""
SENTIS_OPERATORS = frozenset(
    {"And", "ArgMax", "Cast", "Clip", "Equal", "Gemm", "Greater", "Mul", "ReduceMax"}
    | {"ReduceSum", "Relu", "Sub", "Tanh", "Where"}
)
"""The operators the graph may use: each on Unity Sentis' list of supported ONNX
operators, for float and int tensors (a bool is cast to float before a reduction)."""
ACTIVATION_OPS = {"tanh": "Tanh", "relu": "Relu"}


def brain_graph(brain: NumpyBrain) -> onnx.ModelProto:
    """The ONNX model of `brain`, checked by `onnx.checker`."""
    size, actions = brain.spec.size, len(brain.head[1])
    constants = [
        numpy_helper.from_array(brain.obs_mean.astype(np.float32), "obs_mean"),
        numpy_helper.from_array(brain.obs_scale.astype(np.float32), "obs_scale"),
        numpy_helper.from_array(np.array(-brain.clip, np.float32), "clip_low"),
        numpy_helper.from_array(np.array(brain.clip, np.float32), "clip_high"),
        numpy_helper.from_array(np.array(-np.inf, np.float32), "illegal"),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
        numpy_helper.from_array(np.array([1], np.int64), "row_axis"),
        numpy_helper.from_array(np.array(-1, np.int64), "refused"),
    ]
    nodes = [
        helper.make_node("Sub", ["observation", "obs_mean"], ["centred"]),
        helper.make_node("Mul", ["centred", "obs_scale"], ["scaled"]),
        helper.make_node("Clip", ["scaled", "clip_low", "clip_high"], ["h0"]),
        # valid: a finite observation (x * 0 sums to 0, a NaN or an infinity to NaN)
        # and a mask with a legal action
        helper.make_node("Mul", ["observation", "zero"], ["nothing"]),
        helper.make_node("ReduceSum", ["nothing", "row_axis"], ["probe"], keepdims=0),
        helper.make_node("Equal", ["probe", "zero"], ["finite"]),
        helper.make_node("Cast", ["action_mask"], ["legal"], to=TensorProto.FLOAT),
        helper.make_node("ReduceMax", ["legal"], ["most"], axes=[1], keepdims=0),
        helper.make_node("Greater", ["most", "zero"], ["any_legal"]),
        helper.make_node("And", ["finite", "any_legal"], ["valid"]),
    ]
    activation = ACTIVATION_OPS[brain.manifest["network"]["activation"]]
    current = "h0"
    for i, (weight_t, bias) in enumerate(brain.layers):
        constants += [
            numpy_helper.from_array(weight_t, f"layer_{i}_weight"),
            numpy_helper.from_array(bias, f"layer_{i}_bias"),
        ]
        nodes += [
            helper.make_node(
                "Gemm", [current, f"layer_{i}_weight", f"layer_{i}_bias"], [f"z{i + 1}"]
            ),
            helper.make_node(activation, [f"z{i + 1}"], [f"h{i + 1}"]),
        ]
        current = f"h{i + 1}"
    weight_t, bias = brain.head
    constants += [
        numpy_helper.from_array(weight_t, "action_weight"),
        numpy_helper.from_array(bias, "action_bias"),
    ]
    nodes += [
        helper.make_node("Gemm", [current, "action_weight", "action_bias"], ["logits"]),
        helper.make_node("Where", ["action_mask", "logits", "illegal"], ["masked"]),
        helper.make_node("ArgMax", ["masked"], ["best"], axis=1, keepdims=0),
        helper.make_node("Where", ["valid", "best", "refused"], ["action"]),
    ]
    graph = helper.make_graph(
        nodes,
        f"duelo_{brain.name}",
        inputs=[
            helper.make_tensor_value_info("observation", TensorProto.FLOAT, ["N", size]),
            helper.make_tensor_value_info("action_mask", TensorProto.BOOL, ["N", actions]),
        ],
        outputs=[
            helper.make_tensor_value_info("action", TensorProto.INT64, ["N"]),
            helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["N", actions]),
            helper.make_tensor_value_info("valid", TensorProto.BOOL, ["N"]),
        ],
        initializer=constants,
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="duelo"
    )
    model.ir_version = 8  # what onnxruntime and the engines' importers read widely
    helper.set_model_props(model, {"duelo_manifest": json.dumps(brain.manifest)})
    onnx.checker.check_model(model, full_check=True)
    return model


def export_onnx(brain: str | Path, out: Path) -> Path:
    """Write the ONNX file of a brain (a folder, or the name of a shipped one)."""
    model = brain_graph(load_brain(brain))
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, str(out))
    return out
