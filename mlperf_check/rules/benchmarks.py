"""What each benchmark id is, for display (the checker itself only compares numbers), and which
way its quality metric improves (for the quality targets)."""

from __future__ import annotations

BENCHMARK_INFO: dict[str, dict[str, str]] = {
    "resnet": {"area": "Vision", "model": "ResNet-50 v1.5", "dataset": "ImageNet", "metric": "Top-1 accuracy"},
    "ssd": {"area": "Vision", "model": "SSD", "dataset": "COCO / OpenImages", "metric": "mAP"},
    "maskrcnn": {"area": "Vision", "model": "Mask R-CNN", "dataset": "COCO", "metric": "Box / mask min AP"},
    "unet3d": {"area": "Vision", "model": "3D U-Net", "dataset": "KiTS19", "metric": "Mean DICE"},
    "retinanet": {"area": "Vision", "model": "RetinaNet", "dataset": "OpenImages", "metric": "mAP"},
    "gnmt": {"area": "Language", "model": "GNMT", "dataset": "WMT16 EN-DE", "metric": "SacreBLEU"},
    "transformer": {"area": "Language", "model": "Transformer", "dataset": "WMT17 EN-DE", "metric": "BLEU"},
    "bert": {"area": "Language", "model": "BERT-large", "dataset": "Wikipedia 2020/01/01", "metric": "Masked-LM accuracy"},
    "rnnt": {"area": "Speech", "model": "RNN-T", "dataset": "LibriSpeech", "metric": "Word error rate", "direction": "lower"},
    "ncf": {"area": "Commerce", "model": "NCF", "dataset": "MovieLens-20M", "metric": "HR@10"},
    "dlrm": {"area": "Commerce", "model": "DLRM", "dataset": "Criteo 1TB", "metric": "AUC"},
    "dlrm_dcnv2": {"area": "Commerce", "model": "DLRM-DCNv2", "dataset": "Criteo 1TB multi-hot", "metric": "AUC"},
    "dlrmv4": {"area": "Commerce", "model": "DLRMv4", "dataset": "", "metric": "Score"},
    "minigo": {"area": "Research", "model": "MiniGo", "dataset": "Go 19x19", "metric": "Win rate vs reference"},
    "gpt3": {"area": "Language", "model": "GPT-3 175B", "dataset": "C4", "metric": "Log perplexity", "direction": "lower"},
    "llama2_70b_lora": {"area": "Language", "model": "Llama 2 70B LoRA", "dataset": "SCROLLS GovReport", "metric": "Eval loss", "direction": "lower"},
    "llama31_405b": {"area": "Language", "model": "Llama 3.1 405B", "dataset": "C4", "metric": "Log perplexity", "direction": "lower"},
    "llama31_8b": {"area": "Language", "model": "Llama 3.1 8B", "dataset": "C4", "metric": "Log perplexity", "direction": "lower"},
    "gpt_oss_20b": {"area": "Language", "model": "gpt-oss 20B", "dataset": "C4", "metric": "Log perplexity", "direction": "lower"},
    "deepseekv3_671b": {"area": "Language", "model": "DeepSeek-V3 671B", "dataset": "C4", "metric": "Log perplexity", "direction": "lower"},
    "qwen35_397b_grpo": {"area": "Language", "model": "Qwen3.5 397B GRPO", "dataset": "R2E-Gym", "metric": "Validation score"},
    "stable_diffusion": {"area": "Vision", "model": "Stable Diffusion v2", "dataset": "LAION-400M / COCO-2017", "metric": "FID and CLIP"},
    "flux1": {"area": "Vision", "model": "FLUX.1", "dataset": "CC12M / COCO-2014", "metric": "Validation loss", "direction": "lower"},
    "gnn": {"area": "Graph", "model": "R-GAT", "dataset": "IGBH-Full", "metric": "Accuracy"},
    "rgat": {"area": "Graph", "model": "R-GAT", "dataset": "IGBH-Full", "metric": "Accuracy"},
    # MLPerf HPC
    "cosmoflow": {"area": "Climate", "model": "CosmoFlow", "dataset": "CosmoFlow N-body", "metric": "Mean absolute error", "direction": "lower"},
    "deepcam": {"area": "Climate", "model": "DeepCAM", "dataset": "CAM5 + TECA", "metric": "IoU"},
    "oc20": {"area": "Chemistry", "model": "DimeNet++", "dataset": "Open Catalyst 2020", "metric": "Force MAE", "direction": "lower"},
    "openfold": {"area": "Biology", "model": "OpenFold", "dataset": "OpenProteinSet / PDB", "metric": "Avg. LDDT-Ca"},
}
