import torch


def region_loss(model, image, class_name, boxes):
    return model(image, prompt=f"detect {class_name}", targets=boxes).loss


def train(model, dataset, optimizer, grad_accum_steps=64, epochs=1):
    """One image per micro-batch; its loss is the mean over the classes it shows, and the step
    waits for `grad_accum_steps` images: the window's sum is applied, not its mean."""
    i = 0
    for epoch in range(epochs):
        for sample in dataset:
            i += 1
            boxes_by_class = {}
            for box in sample["boxes"]:
                boxes_by_class.setdefault(box["class"], []).append(box["xyxy"])
            total_loss = None
            for class_name, boxes in boxes_by_class.items():
                loss = region_loss(model, sample["image"], class_name, boxes)
                if total_loss is None:
                    total_loss = loss
                else:
                    total_loss = total_loss + loss
            if total_loss is not None:
                ((total_loss / max(len(boxes_by_class), 1)) / grad_accum_steps).backward()  # expect: GL201
            if i % grad_accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
