class Trainer:
    def train_window(self, batches):
        for micro, batch in enumerate(batches[:-1]):
            with self.model.no_sync():
                loss = self.compute_loss(batch)
                loss.backward()
        self.compute_loss(batches[-1]).backward()
        self.optimizer.step()
        self.optimizer.zero_grad()
