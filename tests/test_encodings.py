"""pekit.encodings against the float64 formula, a per-element loop, tensor2tensor's recipe
and the book's own class."""

import math

import numpy as np
import pytest
import torch
from torch import nn
from torch.testing import assert_close

from pekit import (
    PositionalEncoding,
    binary_encoding,
    compare_layouts,
    concatenated_to_interleaved,
    frequencies,
    frequency_table,
    sinusoidal_columns,
    interleaved_to_concatenated,
    sinusoidal_encoding,
    wavelengths,
)


def naive_interleaved(n, d, base=10000.0, start=0):
    """Per-element loop straight from the paper's formula, in float64."""
    P = np.zeros((n, d))
    for i in range(n):
        for c in range(d):
            j = c // 2
            angle = (start + i) / base ** (2 * j / d)
            P[i, c] = math.sin(angle) if c % 2 == 0 else math.cos(angle)
    return torch.from_numpy(P)


def t2t_timing_signal(length, channels, min_timescale=1.0, max_timescale=1.0e4, start_index=0):
    """tensor2tensor's get_timing_signal_1d, transcribed to float64 numpy."""
    position = np.arange(length, dtype=np.float64) + start_index
    num_timescales = channels // 2
    log_inc = math.log(max_timescale / min_timescale) / max(num_timescales - 1, 1)
    inv_timescales = min_timescale * np.exp(np.arange(num_timescales) * -log_inc)
    scaled = position[:, None] * inv_timescales[None, :]
    signal = np.concatenate([np.sin(scaled), np.cos(scaled)], axis=1)
    signal = np.pad(signal, [[0, 0], [0, channels % 2]])
    return torch.from_numpy(signal)


class BookPositionalEncoding(nn.Module):
    """The book's PyTorch class (float32 angles), as printed in the chapter."""

    def __init__(self, num_hiddens, dropout, max_len=1000):
        super().__init__()
        self.dropout = nn.Dropout(dropout)
        self.P = torch.zeros((1, max_len, num_hiddens))
        X = torch.arange(max_len, dtype=torch.float32).reshape(-1, 1) / torch.pow(
            10000, torch.arange(0, num_hiddens, 2, dtype=torch.float32) / num_hiddens
        )
        self.P[:, :, 0::2] = torch.sin(X)
        self.P[:, :, 1::2] = torch.cos(X)

    def forward(self, X):
        X = X + self.P[:, : X.shape[1], :].to(X.device)
        return self.dropout(X)


@pytest.mark.parametrize("n", [1, 2, 7, 60, 101])
@pytest.mark.parametrize("d", [1, 2, 3, 8, 31, 32])
@pytest.mark.parametrize("start", [0, 1, 17])
@pytest.mark.parametrize("base", [10000.0, 100.0])
def test_interleaved_matches_naive_loop(n, d, start, base):
    P = sinusoidal_encoding(n, d, base=base, start=start, device="cpu")
    assert P.shape == (n, d) and P.dtype == torch.float32 and P.is_contiguous()
    assert_close(P.double(), naive_interleaved(n, d, base, start), atol=3e-7, rtol=0)


@pytest.mark.parametrize("n", [1, 5, 64, 99])
@pytest.mark.parametrize("d", [1, 2, 3, 4, 9, 32])
@pytest.mark.parametrize("start", [0, 1])
def test_tensor2tensor_layout_matches_reference(n, d, start):
    P = sinusoidal_encoding(n, d, start=start, layout="tensor2tensor", device="cpu")
    assert P.shape == (n, d)
    assert_close(P.double(), t2t_timing_signal(n, d, start_index=start), atol=3e-7, rtol=0)


@pytest.mark.parametrize("layout", ["interleaved", "tensor2tensor"])
def test_accurate_at_long_positions(layout):
    """Within 1e-6 of float64 at position 100 000, where the book's float32 code is ~7e-3 off."""
    n, d = 100_001, 64
    P = sinusoidal_encoding(n, d, layout=layout, device="cpu")
    rows = torch.tensor([0, 1, 4095, 65_537, 99_999, 100_000])
    if layout == "interleaved":
        ref = torch.stack([naive_interleaved(1, d, start=int(r))[0] for r in rows])
    else:
        ref = t2t_timing_signal(n, d)[rows]
    err = (P[rows].double() - ref).abs().max().item()
    assert err < 1e-6
    book = BookPositionalEncoding(d, 0.0, max_len=n).P[0, rows].double()
    book_err = (book - naive_interleaved(1, d, start=100_000)[0]).abs().max().item()
    if layout == "interleaved":
        assert book_err > 1e-3  # the reference we improve on really is off there


def test_float64_and_half_dtypes():
    P64 = sinusoidal_encoding(50, 16, dtype=torch.float64, device="cpu")
    assert P64.dtype == torch.float64
    assert_close(P64, naive_interleaved(50, 16), atol=1e-12, rtol=0)
    Pbf = sinusoidal_encoding(50, 16, dtype=torch.bfloat16, device="cpu")
    assert Pbf.dtype == torch.bfloat16
    assert_close(Pbf.double(), naive_interleaved(50, 16), atol=2e-2, rtol=0)


def test_same_numbers_on_every_device(device):
    P = sinusoidal_encoding(257, 33, start=3, device=device)
    assert P.device.type == device
    assert_close(P.cpu(), sinusoidal_encoding(257, 33, start=3, device="cpu"), atol=1e-6, rtol=0)


def test_zero_positions_gives_empty_table():
    assert sinusoidal_encoding(0, 8, device="cpu").shape == (0, 8)


def test_frequencies_and_wavelengths():
    w = frequencies(8)
    assert_close(w, torch.tensor([10000.0 ** (-2 * j / 8) for j in range(4)], dtype=torch.float64))
    assert_close(wavelengths(8), 2 * math.pi / w)
    t2t = frequencies(8, layout="tensor2tensor")
    assert_close(t2t[0], torch.tensor(1.0, dtype=torch.float64))
    assert_close(t2t[-1], torch.tensor(1e-4, dtype=torch.float64))  # ends exactly at 1/base
    assert frequencies(5).numel() == 3 and frequencies(5, layout="tensor2tensor").numel() == 2


@pytest.mark.parametrize("d", [2, 8, 30])
def test_reorder_round_trip(d):
    X = torch.randn(4, 3, d, generator=torch.Generator().manual_seed(0))
    assert torch.equal(concatenated_to_interleaved(interleaved_to_concatenated(X)), X)
    assert torch.equal(interleaved_to_concatenated(concatenated_to_interleaved(X)), X)
    cols = interleaved_to_concatenated(torch.arange(d).float())
    assert cols.tolist() == list(range(0, d, 2)) + list(range(1, d, 2))


def test_reorder_refuses_odd_width():
    with pytest.raises(ValueError, match="even"):
        interleaved_to_concatenated(torch.zeros(3, 5))


def test_positional_encoding_is_drop_in_for_the_book():
    ours, book = PositionalEncoding(32, 0.0), BookPositionalEncoding(32, 0.0)
    assert ours.P.shape == (1, 1000, 32)
    assert "P" in dict(ours.named_buffers()) and "P" not in ours.state_dict()
    ours.load_state_dict(book.state_dict())
    X = torch.randn(2, 60, 32, generator=torch.Generator().manual_seed(1))
    assert_close(ours(X), book(X), atol=1e-5, rtol=0)  # the book rounds its angles in float32


def test_positional_encoding_odd_width_and_dropout():
    pe = PositionalEncoding(7, 0.5, max_len=10)
    pe.eval()
    X = torch.zeros(3, 10, 7)
    assert_close(pe(X), pe.P.expand(3, -1, -1))
    pe.train()
    out = pe(torch.zeros(1, 10, 7))
    kept = out != 0
    assert_close(out[kept], 2 * pe.P[0][kept[0]])  # survivors scaled by 1/(1-p)


def test_positional_encoding_errors():
    pe = PositionalEncoding(8, 0.0, max_len=5)
    with pytest.raises(ValueError, match="max_len=5"):
        pe(torch.zeros(1, 6, 8))
    with pytest.raises(ValueError, match=r"\(batch, steps, 8\)"):
        pe(torch.zeros(1, 5, 9))
    with pytest.raises(ValueError, match="dropout"):
        PositionalEncoding(8, 1.5)
    with pytest.raises(ValueError, match="num_hiddens"):
        PositionalEncoding(0, 0.1)


def test_positional_encoding_moves_with_module(device):
    pe = PositionalEncoding(6, 0.0, max_len=4, device="cpu").to(device)
    assert pe.P.device.type == device
    assert pe(torch.zeros(1, 4, 6, device=device)).device.type == device


@pytest.mark.parametrize("n", [1, 2, 8, 13, 1024])
def test_binary_encoding_matches_python_bits(n):
    B = binary_encoding(n, device="cpu")
    bits = max(1, (n - 1).bit_length())
    assert B.shape == (n, bits)
    ref = torch.tensor([[(i >> b) & 1 for b in range(bits)] for i in range(n)], dtype=torch.float32)
    assert torch.equal(B, ref)


def test_binary_encoding_wraps_with_few_bits():
    B = binary_encoding(10, bits=3, device="cpu")
    assert torch.equal(B[8], B[0]) and torch.equal(B[9], B[1])
    assert binary_encoding(8, device="cpu")[5].tolist() == [1.0, 0.0, 1.0]  # 5 = 101, LSB first


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: sinusoidal_encoding(-1, 4), "num_positions"),
        (lambda: sinusoidal_encoding(2.5, 4), "num_positions"),
        (lambda: sinusoidal_encoding(True, 4), "num_positions"),
        (lambda: sinusoidal_encoding(4, 0), "dim"),
        (lambda: sinusoidal_encoding(4, 4, base=0), "base"),
        (lambda: sinusoidal_encoding(4, 4, base=float("nan")), "base"),
        (lambda: sinusoidal_encoding(4, 4, base=float("inf")), "base"),
        (lambda: sinusoidal_encoding(4, 4, start=0.5), "start"),
        (lambda: sinusoidal_encoding(4, 4, layout="concat"), "layout"),
        (lambda: sinusoidal_encoding(4, 4, dtype=torch.int64), "dtype"),
        (lambda: sinusoidal_encoding(4, 4, device="tpu"), "device"),
        (lambda: binary_encoding(8, bits=0), "bits"),
        (lambda: binary_encoding(-3), "num_positions"),
        (lambda: frequencies(0), "dim"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_frequency_table_columns():
    t = frequency_table(5)
    assert t["sin_column"].tolist() == [0, 2, 4] and t["cos_column"].tolist() == [1, 3, -1]
    t2 = frequency_table(8, layout="tensor2tensor")
    assert t2["sin_column"].tolist() == [0, 1, 2, 3] and t2["cos_column"].tolist() == [4, 5, 6, 7]
    assert t2["wavelength"].iloc[-1] == pytest.approx(2 * math.pi * 10000)


@pytest.mark.parametrize("d", [2, 16, 33])
def test_compare_layouts_against_direct_difference(d):
    table = compare_layouts(40, d, base=100.0)
    k = d // 2
    inter = torch.from_numpy(naive_interleaved(40, d, 100.0).numpy())
    t2t = t2t_timing_signal(40, d, max_timescale=100.0)
    for j in range(k):
        gap = max((inter[:, 2 * j] - t2t[:, j]).abs().max(), (inter[:, 2 * j + 1] - t2t[:, k + j]).abs().max())
        assert table["max_abs_difference"][j] == pytest.approx(float(gap), abs=1e-6)
    assert table["max_abs_difference"][0] == 0  # both start at frequency 1
    if d == 2:
        assert table["max_abs_difference"].max() == 0


@pytest.mark.parametrize("layout", ["interleaved", "tensor2tensor"])
@pytest.mark.parametrize("n, d, cols", [(60, 32, [6, 7, 8, 9]), (1000, 9, [8, 0, 3]), (5, 1, [0]), (17, 7, [6, 6, 1])])
def test_sinusoidal_columns_equal_table_columns(layout, n, d, cols):
    full = sinusoidal_encoding(n, d, start=3, layout=layout, device="cpu")
    assert torch.equal(sinusoidal_columns(n, d, cols, start=3, layout=layout, device="cpu"), full[:, cols])


def test_sinusoidal_columns_range_checked():
    with pytest.raises(ValueError, match="columns"):
        sinusoidal_columns(5, 4, [4])


# ---------------------------------------------------------------------------------------------
# Far positions against the exact formula: the frequency base**(-2j/dim) as a real number, the
# angle evaluated with 60 digits and reduced modulo 2π (mpmath)

from hypothesis import example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def exact_table(positions, dim, base=10000.0, layout="interleaved"):
    """The table's rows at ``positions``, float64 from 60-digit arithmetic."""
    import mpmath

    with mpmath.workdps(60):
        k = dim // 2
        pairs = (dim + 1) // 2 if layout == "interleaved" else k
        out = np.zeros((len(positions), dim))
        for j in range(pairs):
            if layout == "interleaved":
                w = mpmath.power(mpmath.mpf(base), mpmath.mpf(-2 * j) / dim)
                cols = (2 * j, 2 * j + 1)
            else:
                w = mpmath.power(mpmath.mpf(base), -mpmath.mpf(j) / max(k - 1, 1))
                cols = (j, k + j)
            for r, p in enumerate(positions):
                a = mpmath.fmod(p * w, 2 * mpmath.pi)
                out[r, cols[0]] = float(mpmath.sin(a))
                if cols[1] < dim:
                    out[r, cols[1]] = float(mpmath.cos(a))
        return torch.tensor(out)


FAR_STARTS = [10**5, 1_398_100, 10**9, 190_000_000_000_000, 2**52 - 3, -(2**52), -(10**9) - 7]


@pytest.mark.parametrize("layout", ["interleaved", "tensor2tensor"])
@pytest.mark.parametrize("dim", [4, 7, 64])
@pytest.mark.parametrize("start", FAR_STARTS)
def test_far_positions_are_exact(layout, dim, start):
    P = sinusoidal_encoding(3, dim, start=start, layout=layout, dtype=torch.float64, device="cpu")
    assert (P - exact_table(range(start, start + 3), dim, layout=layout)).abs().max() < 1e-9


@pytest.mark.parametrize("start", [10**9, 2**52 - 5])
def test_far_columns_are_exact(start):
    cols = sinusoidal_columns(4, 64, [0, 1, 40, 63], start=start, dtype=torch.float64, device="cpu")
    assert (cols - exact_table(range(start, start + 4), 64)[:, [0, 1, 40, 63]]).abs().max() < 1e-9


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(dim=st.integers(1, 96), start=st.one_of(st.integers(-(2**52), 2**52 - 4), st.integers(-(2**22), 2**22)),
       base=st.sampled_from([10000.0, 500000.0, 2.0, 1.0, 1e-6, 0.37, 1e300]),
       layout=st.sampled_from(["interleaved", "tensor2tensor"]))
@example(dim=128, start=10**5, base=10000.0, layout="interleaved")
@example(dim=2, start=2**52 - 4, base=1e-6, layout="interleaved")
def test_every_accepted_position_is_exact(dim, start, base, layout):
    if layout == "tensor2tensor" and dim < 2:
        return
    P = sinusoidal_encoding(4, dim, start=start, base=base, layout=layout, dtype=torch.float64, device="cpu")
    assert (P - exact_table(range(start, start + 4), dim, base, layout)).abs().max() < 1e-9


def test_positions_past_the_range_are_refused():
    with pytest.raises(ValueError, match=r"start=.*4,503,599,627,370,496"):
        sinusoidal_encoding(2, 4, start=2**52 + 1)


def test_ordinary_positions_keep_the_float64_formula():
    """Up to the fast range the table is the one the float64 formula gives, number for number."""
    P = sinusoidal_encoding(64, 128, start=10**5 - 64, dtype=torch.float64, device="cpu")
    w = frequencies(128)
    theta = torch.arange(10**5 - 64, 10**5, dtype=torch.float64)[:, None] * w
    assert_close(P[:, 0::2], torch.sin(theta), atol=1e-10, rtol=0)
    assert (P - exact_table(range(10**5 - 64, 10**5), 128)).abs().max() < 1e-9


@pytest.mark.parametrize("n, d, start, layout", [(8192, 1024, 0, "interleaved"), (1000, 33, 7, "interleaved"),
                                                 (257, 64, 90_000, "tensor2tensor"), (1, 2, 0, "interleaved"),
                                                 (5000, 1000, 3, "tensor2tensor")])
def test_the_accelerator_path_gives_the_cpu_table(n, d, start, layout, monkeypatch):
    """On a GPU each angle is computed directly in float64 (a few large kernels); run here on the
    CPU, that path gives the angle-sum table to float32 rounding, in chunks of any size."""
    from pekit import encodings

    expected = sinusoidal_encoding(n, d, start=start, layout=layout, device="cpu")
    monkeypatch.setattr(encodings, "_DIRECT_CHUNK", 1000)  # several chunks
    calls = []

    def direct_on_cpu(sin_out, cos_out, start_, omega, block, exact):
        calls.append(block)
        encodings._sincos_direct(sin_out, cos_out, start_, omega, exact)

    monkeypatch.setattr(encodings, "_sincos_into", direct_on_cpu)
    got = sinusoidal_encoding(n, d, start=start, layout=layout, device="cpu")
    assert calls and got.shape == expected.shape
    assert float((got - expected).abs().max()) <= 2.5e-7
    # the frequencies made on the table's device are frequencies() itself
    assert torch.equal(encodings._frequencies(d, 10000.0, layout, device=torch.device("cpu")),
                       frequencies(d, layout=layout))
    # ... and made once per shape and device (the same tensor the next time)
    cpu = torch.device("cpu")
    assert encodings._device_frequencies(d, 10000.0, layout, cpu) is encodings._device_frequencies(
        d, 10000.0, layout, cpu)
