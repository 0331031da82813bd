"""A distillation trainer that retries a batch after running out of memory: the count of
micro-batches goes up once per batch, on the retry loop's only way out, and the step waits for a
whole window of them; the epoch's last partial window is cleared by the next epoch's zero_grad."""
import torch
import torch.nn.functional as F


class Distiller:
    def __init__(self, student, teacher, dataloader, config):
        self.student = student
        self.teacher = teacher
        self.dataloader = dataloader
        self.config = config
        self.opt = torch.optim.AdamW(student.parameters(), lr=config.lr)

    def _forward_batch(self, batch):
        with torch.no_grad():
            teacher_logits = self.teacher(batch["input_ids"]).logits
        logits = self.student(batch["input_ids"]).logits
        kl = F.kl_div(F.log_softmax(logits, -1), F.softmax(teacher_logits, -1), reduction="batchmean")
        return kl + F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten())

    def train(self, epochs):
        for epoch in range(epochs):
            self.opt.zero_grad(set_to_none=True)
            step = 0
            for batch in self.dataloader:
                retries = 0
                while True:
                    try:
                        loss = self._forward_batch(batch) / self.config.gradient_accumulation_steps
                        loss.backward()
                        step += 1
                        break
                    except torch.cuda.OutOfMemoryError:
                        retries += 1
                        self.opt.zero_grad(set_to_none=True)
                        torch.cuda.empty_cache()
                        if retries >= 3:
                            raise
                        continue
                if step % self.config.gradient_accumulation_steps == 0 or step == len(self.dataloader):  # expect: GL205
                    torch.nn.utils.clip_grad_norm_(self.student.parameters(), 1.0)
                    self.opt.step()
                    self.opt.zero_grad(set_to_none=True)
